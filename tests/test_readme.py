"""The README's promises: a short front door, CI runs its test command, its examples run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
BROWSER_TEST = "python -m pytest -m slow tests/docs/test_browser.py"


def setup_commands() -> list[str]:
    first_block = re.search(r"```bash\n(.*?)```", README, flags=re.DOTALL).group(1)
    return [line for line in first_block.splitlines() if line and not line.startswith("#")]


def test_readme_is_at_most_200_lines():
    assert len(README.splitlines()) <= 200


def test_readme_opens_with_exactly_two_setup_commands():
    commands = setup_commands()
    assert len(commands) == 2
    assert commands[0].endswith("palaestra train CartPole-v1")
    assert commands[1].endswith(f"python -m pytest && {BROWSER_TEST}")


def test_the_setup_commands_come_before_any_section():
    assert README.index("```bash") < README.index("\n## ")


def test_ci_runs_the_readme_test_command():
    ci_script = (ROOT / ".ci" / "run").read_text()
    assert setup_commands()[1] in ci_script.splitlines()


def test_the_test_command_installs_what_the_browser_test_needs():
    command = setup_commands()[1]
    assert "apt-get install -y" in command and " chromium" in command
    assert 'pip install -e ".[test]"' in command


def test_readme_states_the_test_suites_expected_duration():
    assert re.search(r"in up to \d+ minutes on a 2-core machine", README)


# A figure copied by hand goes stale: ratios (1.53x), rates (246k, 1.5M), timings (299 µs, 0.4 s).
_FIGURE = re.compile(r"\b\d+(?:\.\d+)?(?:x\b|k\b|M\b| ?µs| ?us\b| ?ms\b| s\b|%)")


def test_readme_quotes_no_hand_copied_figures():
    prose = re.sub(r"```.*?```", "", README, flags=re.DOTALL)
    # The speed table is generated from the records (tests/test_readme_figures.py checks it).
    header = "| measured side by side (table made by `benchmarks/readme_figures.py`) |"
    prose = re.sub(rf"^{re.escape(header)}.*?(?:\n\n|\Z)", "", prose, flags=re.DOTALL | re.M)
    assert _FIGURE.findall(prose) == []


def test_readme_states_what_reliability_and_start_up_guarantee():
    assert "**Reliability:** a sub-env that raises, hangs or dies is reported" in README
    assert "**Start-up:** `import palaestra` loads numpy and the registry only" in README


@pytest.mark.parametrize("link", re.findall(r"\]\(((?!https?:)[^)#]+)\)", README))
def test_readme_links_to_files_that_exist(link):
    assert (ROOT / link).exists(), link


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_readme_python_example_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = compile(PYTHON_BLOCKS[index], f"README.md python block {index}", "exec")
    exec(code, {"__name__": f"readme_block_{index}"})
