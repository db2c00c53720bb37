"""`pip install clients/python` works offline into a fresh venv: the package imports from the
venv (not the source tree), is typed (py.typed installed) and has its public names."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]


def test_pip_install_into_a_venv(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(SOURCE, src, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    venv = tmp_path / "venv"
    # Debian's setuptools and wheel come from the system site packages (no network, no index)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", str(src)],
                   check=True, cwd=tmp_path)
    probe = ("import runbox, pathlib; p = pathlib.Path(runbox.__file__).parent; "
             "print(p); print((p / 'py.typed').is_file()); "
             "print(all(hasattr(runbox, n) for n in runbox.__all__))")
    out = subprocess.run([str(py), "-c", probe], check=True, cwd=tmp_path, capture_output=True, text=True)
    where, typed, names = out.stdout.splitlines()
    assert Path(where).resolve().is_relative_to(venv.resolve()), f"imported from {where}"
    assert typed == "True", "py.typed is installed"
    assert names == "True"
    listed = subprocess.run([str(py), "-m", "pip", "show", "-f", "runbox"], check=True, capture_output=True,
                            text=True).stdout
    assert "runbox/py.typed" in listed and "Version: 0.1.0" in listed
