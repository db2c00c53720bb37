"""The README's Python examples run as written against the real agent (light ones against the
root agent, when its light tier works here; pool ones against conftest's three pool hosts, whose
fleet file is the default one under XDG_CONFIG_HOME)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_the_readme_has_examples():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example(index, request, monkeypatch):
    code = BLOCKS[index]
    if "Pool(" in code:
        hosts = request.getfixturevalue("pool_hosts")
        monkeypatch.setenv("XDG_CONFIG_HOME", str(hosts.config_home))
        url, token = hosts.agents[0].url, hosts.agents[0].token
    elif 'isolation="light"' in code:
        target = request.getfixturevalue("light_agent")
        url, token = target.url, target._client.token
    else:
        real = request.getfixturevalue("real_agent")
        url, token = real.url, real.token
    monkeypatch.setenv("RUNBOX_URL", url)
    monkeypatch.setenv("RUNBOX_TOKEN", token)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"README.md example {index + 1}", "exec"), {"__name__": "__readme__"})
    assert out.getvalue(), "the example printed something"
    if "Pool(" in code:
        assert "pool_full" in out.getvalue() and hosts.held() == [0, 0, 0], out.getvalue()
