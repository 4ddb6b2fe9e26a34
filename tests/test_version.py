"""The version policy (docs/dropin.md): client code comparing versions sees Gymnasium 1.4."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import palaestra as gym

ROOT = Path(__file__).resolve().parents[1]
Version = pytest.importorskip("packaging.version").Version
gymnasium = pytest.importorskip("gymnasium")


def test_version_is_the_gymnasium_api_then_palaestras_release_on_it():
    assert re.fullmatch(r"1\.4\.0\.\d+", gym.__version__)


def test_version_states_the_installed_reference_gymnasiums_api():
    assert Version(gym.__version__).release[:3] == Version(gymnasium.__version__).release


def test_client_branches_on_the_version_as_on_gymnasium_1_4():
    # The checks libraries write against Gymnasium (pre-1.0 fallbacks, feature gates), each
    # evaluated on both: palaestra must take the branch Gymnasium 1.4 takes.
    def branches(version: str) -> list[bool]:
        return [
            version > "1",
            version >= "1.0.0",
            version < "1.5",
            Version(version) >= Version("1.0"),
            Version(version) >= Version("1.4.0"),
            Version(version) < Version("1.5"),
            Version(version).major == 1 and Version(version).minor == 4,
            tuple(int(part) for part in version.split("."))[:2] >= (1, 0),
        ]

    assert branches(gym.__version__) == branches(gymnasium.__version__) == [True] * 8


def test_version_is_plain_pep440_without_local_or_pre_release_parts():
    version = Version(gym.__version__)
    assert (version.local, version.pre, version.dev, version.post) == (None, None, None, None)


def test_pyproject_states_the_same_version():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == gym.__version__


def test_the_version_page_examples_hold():
    page = (ROOT / "docs" / "dropin.md").read_text()
    (example,) = [
        block
        for block in re.findall(r"```python\n(.*?)```", page, flags=re.S)
        if "__version__" in block
    ]
    exec(compile(example, "docs/dropin.md", "exec"), {})
