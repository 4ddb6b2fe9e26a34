"""The README's promises: CI runs its test command, and its Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)


def setup_commands() -> list[str]:
    first_block = re.search(r"```bash\n(.*?)```", README, flags=re.DOTALL).group(1)
    return [line for line in first_block.splitlines() if line and not line.startswith("#")]


def test_readme_opens_with_exactly_two_setup_commands():
    commands = setup_commands()
    assert len(commands) == 2
    assert commands[0].endswith("palaestra train CartPole-v1")
    assert commands[1].endswith("python -m pytest")


def test_ci_runs_the_readme_test_command():
    ci_script = (ROOT / ".ci" / "run").read_text()
    assert setup_commands()[1] in ci_script.splitlines()


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_readme_python_example_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = compile(PYTHON_BLOCKS[index], f"README.md python block {index}", "exec")
    exec(code, {"__name__": f"readme_block_{index}"})
