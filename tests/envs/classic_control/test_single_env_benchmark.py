"""benchmarks/single_env_step.py prints one well-formed line per environment."""

from __future__ import annotations

import json

import pytest

single_env_step = pytest.importorskip("benchmarks.single_env_step")


def test_benchmark_prints_one_json_line_per_environment(gymnasium, capsys):
    env_ids = "CartPole-v1,Pendulum-v1"
    single_env_step.main(["--steps", "30", "--repeats", "1", "--env-ids", env_ids])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["env_id"] for line in lines] == ["CartPole-v1", "Pendulum-v1"]
    for line in lines:
        for stack in ("unwrapped", "make"):
            ours, theirs = line[f"{stack}_palaestra_us"], line[f"{stack}_gymnasium_us"]
            assert ours > 0 and theirs > 0
            assert line[f"{stack}_ratio"] == pytest.approx(ours / theirs, rel=0.01)
