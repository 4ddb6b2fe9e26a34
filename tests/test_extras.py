"""The optional extras: each one that promises a feature has a fresh-venv smoke test."""

from pathlib import Path

import pytest

from tests.fixtures.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
tomllib = pytest.importorskip("tomllib")  # the standard library from Python 3.11


def _smoke_script():
    module = load_script("scripts/smoke_extras.py")
    return module


def test_every_extra_but_the_test_one_has_a_smoke_script():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = set(extras["optional-dependencies"]) - {"test"}
    assert declared - set(_smoke_script().SMOKE) == set()


def test_every_smoke_script_compiles():
    for extra, code in _smoke_script().SMOKE.items():
        compile(code, f"smoke script of {extra}", "exec")


def test_the_smoke_command_refuses_an_unknown_extra(capsys):
    with pytest.raises(SystemExit) as exit_:
        _smoke_script().main(["no-such-extra"])
    assert exit_.value.code == 2
    assert "unknown extras ['no-such-extra']" in capsys.readouterr().err


def test_the_docs_extra_brings_what_building_the_site_imports():
    # Before: `pip install ".[docs]" && python scripts/build_docs.py` failed in a fresh venv
    # (Box2D, then array-api-compat not installed) -- found by scripts/smoke_extras.py docs.
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    docs = extras["optional-dependencies"]["docs"]
    assert "palaestra[box2d,mujoco]" in docs
    assert any(requirement.startswith("array-api-compat") for requirement in docs)
