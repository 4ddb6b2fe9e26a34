"""``palaestra bench``: one JSON line per measurement, ratios, table, errors."""

from __future__ import annotations

import json

import pytest

from palaestra.cli import main
from palaestra.cli.bench import markdown_table

QUICK = ["--steps", "3", "--repeats", "1", "--json"]


def bench_lines(capsys: pytest.CaptureFixture, *arguments: str) -> list[dict]:
    assert main(["bench", *arguments, *QUICK]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_one_json_line_per_mode_and_size_with_the_ratio_to_the_reference(capsys):
    lines = bench_lines(
        capsys,
        "CartPole-v1",
        "--modes",
        "native,sync",
        "--num-envs",
        "2,4",
        "--reference",
        "sync",
    )
    assert [(line["mode"], line["num_envs"]) for line in lines] == [
        ("native", 2),
        ("sync", 2),
        ("native", 4),
        ("sync", 4),
    ]
    assert all(line["steps_per_s"] > 0 for line in lines)
    assert [line["ratio_to_sync"] for line in lines if line["mode"] == "sync"] == [1.0, 1.0]


def test_pool_recv_mode_steps_in_half_batches(capsys):
    (line,) = bench_lines(capsys, "CartPole-v1", "--modes", "pool-recv", "--num-envs", "2")
    assert line["mode"] == "pool-recv" and line["steps_per_s"] > 0


def test_sizes_above_a_modes_maximum_are_skipped(capsys):
    lines = bench_lines(
        capsys,
        "CartPole-v1",
        "--modes",
        "native,sync",
        "--num-envs",
        "4",
        "--max-envs",
        "sync=2",
    )
    assert [line["mode"] for line in lines] == ["native"]


def test_markdown_report_is_written(tmp_path, capsys):
    path = tmp_path / "table.md"
    bench_lines(
        capsys, "CartPole-v1", "--modes", "native", "--num-envs", "2", "--markdown", str(path)
    )
    assert path.read_text().startswith("| CartPole-v1 | N=2 |")


def test_unknown_mode_is_a_usage_error(capsys):
    assert main(["bench", "CartPole-v1", "--modes", "warp"]) == 2
    assert "Unknown bench modes ['warp']" in capsys.readouterr().err


def test_table_cells_show_rate_and_ratio():
    rows = [
        {"env_id": "E", "mode": "a", "num_envs": 8, "steps_per_s": 2_500_000, "ratio_to_b": 3.0},
        {"env_id": "E", "mode": "b", "num_envs": 64, "steps_per_s": 900},
    ]
    assert markdown_table(rows, "b").splitlines()[2:] == [
        "| a | 2.50M (3.00x) |  |",
        "| b |  | 900 |",
    ]


def test_envpool_mode_steps_whole_batches_of_sampled_actions(capsys):
    pytest.importorskip("envpool")
    (line,) = bench_lines(capsys, "CartPole-v1", "--modes", "envpool", "--num-envs", "4")
    assert line["mode"] == "envpool" and line["steps_per_s"] > 0
