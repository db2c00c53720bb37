"""The README's Python examples run as written against the real agent (light ones against the
root agent, when its light tier works here)."""

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
    if 'isolation="light"' in code:
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
