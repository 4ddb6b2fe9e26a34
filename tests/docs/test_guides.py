"""The guide pages' Python examples run as written (``py`` blocks, which need a cluster or a
long run, are shown only)."""

import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide"
BLOCKS = [
    (page.name, index, code)
    for page in sorted(GUIDE.glob("*.md"))
    for index, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.DOTALL))
]


def test_the_guide_has_examples():
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize(("page", "index", "code"), BLOCKS, ids=[f"{p}-{i}" for p, i, _ in BLOCKS])
def test_guide_python_example_runs(page, index, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that save files write them here
    exec(compile(code, f"docs/guide/{page} python block {index}", "exec"), {"__name__": page})
