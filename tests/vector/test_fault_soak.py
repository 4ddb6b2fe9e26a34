"""The soak of benchmarks/fault_soak.py, shortened: cycles and kills leave nothing growing."""

from __future__ import annotations

import json

import pytest

from benchmarks import fault_soak

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def test_create_step_close_cycles_and_killed_workers_keep_resources_flat_and_data_exact(
    tmp_path, capsys
):
    out = tmp_path / "soak.jsonl"
    argv = ["--cycles", "100", "--modes", "async,pool,mujoco_batch", "--minutes", "0.5"]
    fault_soak.main([*argv, "--kill-every", "3", "--out", str(out)])
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["case"] for r in results] == ["cycles"] * 3 + ["kill"]
    for result in results:
        assert result["end"]["fds"] == result["warm"]["fds"]
        assert result["end"]["processes"] == result["warm"]["processes"]
        assert result["end"]["rss_mib"] - result["warm"]["rss_mib"] < 5
    kill = results[-1]
    assert kill["kills"] >= 8
    assert kill["restarts"] == kill["kills"]
    assert kill["rows_differing_from_sync"] == 0
