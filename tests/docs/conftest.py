"""Fixtures of the documentation tests: the site, built once per session with --strict."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def build_result(tmp_path_factory):
    """Run ``mkdocs build --strict`` into a temporary folder: (return code, output, site)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=280,
    )
    return result.returncode, result.stdout + result.stderr, site


@pytest.fixture(scope="session")
def site(build_result):
    """The built site's folder (the build must have succeeded)."""
    returncode, output, folder = build_result
    assert returncode == 0, output
    return folder


@pytest.fixture(scope="session")
def builtin_ids():
    """The ids a fresh ``import palaestra`` registers: what the site is built from.

    Other tests register ids of their own (examples, test envs) in this process's registry.
    """
    script = "import json, palaestra; print(json.dumps(list(palaestra.registry)))"
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    return set(json.loads(output.splitlines()[-1]))
