"""palaestra.train type-checks with mypy (its default checks) without an error."""

from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_palaestra_train_type_checks_without_errors():
    out, err, status = api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), str(ROOT / "palaestra" / "train")]
    )
    assert status == 0, out + err
    assert out.startswith("Success: no issues found")
