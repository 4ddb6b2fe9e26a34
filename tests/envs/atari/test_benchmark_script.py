"""The Atari benchmark script runs and prints its machine-readable rows."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_atari_single_prints_the_times_and_their_ratio():
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        load("atari_single").main(
            ["--steps", "20", "--repeats", "1", "--games", "Pong", "--settings", "raw"]
        )
    (row,) = [json.loads(line) for line in output.getvalue().splitlines()]

    assert (row["env_id"], row["setting"], row["steps"]) == ("ALE/Pong-v5", "raw", 20)
    assert row["ratio"] == pytest.approx(row["palaestra_us"] / row["gymnasium_us"], abs=2e-3)
