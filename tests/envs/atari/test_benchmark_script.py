"""The Atari benchmark script runs and prints its machine-readable rows."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tests.fixtures.scripts import load_script


def load(name: str):
    return load_script(f"benchmarks/{name}.py")


def test_atari_single_prints_the_times_and_their_ratio():
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        load("atari_single").main(
            ["--steps", "20", "--repeats", "1", "--games", "Pong", "--settings", "raw"]
        )
    (row,) = [json.loads(line) for line in output.getvalue().splitlines()]

    assert (row["env_id"], row["setting"], row["steps"]) == ("ALE/Pong-v5", "raw", 20)
    assert row["ratio"] == pytest.approx(row["palaestra_us"] / row["gymnasium_us"], abs=2e-3)


def test_atari_vector_prints_every_contenders_rate_and_palaestras_ratios():
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        load("atari_vector").main(
            ["--games", "pong", "--num-envs", "2", "--env-steps", "8", "--sync-env-steps", "4",
             "--repeats", "1"]
        )  # fmt: skip
    (row,) = [json.loads(line) for line in output.getvalue().splitlines()]

    rates = {key.removeprefix("steps_per_s_"): v for key, v in row.items() if "steps_per_s_" in key}
    assert (row["env_id"], row["num_envs"], row["num_threads"]) == ("ALE/Pong-v5", 2, 2)
    assert {"palaestra", "ale-py", "gym-sync"} <= rates.keys()
    for name in rates.keys() - {"palaestra"}:
        assert row[f"ratio_to_{name}"] == pytest.approx(rates["palaestra"] / rates[name], rel=1e-2)
