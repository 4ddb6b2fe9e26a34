"""The code base stays ruff clean (lint and format), checked as part of the suite."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")


def test_ruff_check_finds_nothing():
    result = subprocess.run(["ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_changes_nothing():
    result = subprocess.run(
        ["ruff", "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
