"""The README's speed table is generated from the benchmark records, never copied by hand."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.scripts import ROOT, load_script

figures = load_script("benchmarks/readme_figures.py")


@pytest.fixture
def records(tmp_path, monkeypatch):
    """An empty benchmarks folder the script reads instead of the repository's."""
    monkeypatch.setattr(figures, "BENCHMARKS", tmp_path)

    def write(name, rows):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))

    return write


def test_the_readme_table_is_the_one_the_records_generate():
    readme = (ROOT / "README.md").read_text()
    assert figures.replace_table(readme, figures.table()) == readme, (
        "README.md's speed table is stale: run python benchmarks/readme_figures.py --write"
    )


def test_the_readme_table_has_a_row_for_each_family_with_a_record():
    rows = figures.table().splitlines()[2:]
    assert [row.split(" | ")[-1] for row in rows] == [
        "`quiet/results.jsonl` |",
        "`toy_text_results.jsonl` |",
        "`mujoco_results.jsonl` |",
        "`ray_mode_results.jsonl` |",
    ]


def test_a_row_takes_the_newest_measurement_of_each_id_and_size(records):
    step = {"kind": "step", "mode": "palaestra", "num_envs": 1024}
    records(
        "toy_text_results.jsonl",
        [
            {**step, "env_id": "Blackjack-v1", "ratio_to_gym": 40.0},
            {**step, "env_id": "Taxi-v4", "ratio_to_gym": 150.0},
            {**step, "env_id": "Blackjack-v1", "ratio_to_gym": 61.234},
            {"kind": "monotonic", "env_id": "Taxi-v4", "holds": True},
            {"kind": "monotonic", "env_id": "Blackjack-v1", "holds": False},
        ],
    )
    assert figures.toy_text() == [
        "toy text, `make_vec(id, n)` vs Gymnasium's, n = 1024 (2 ids)",
        "61.23-150.00x (Blackjack at 1024: 61.23x; never cheaper per step as n doubles: "
        "1 of 2 ids)",
        "`toy_text_results.jsonl`",
    ]


def test_ranges_are_per_size_over_the_ids(records):
    row = {"mode": "default"}
    records(
        "quiet/results.jsonl",
        [
            {**row, "env_id": "A", "num_envs": 8, "ratio_to_gym-default": 2.0},
            {**row, "env_id": "B", "num_envs": 8, "ratio_to_gym-default": 3.5},
            {**row, "env_id": "A", "num_envs": 64, "ratio_to_gym-default": 1.25},
            {"mode": "gym-default", "env_id": "A", "num_envs": 8, "ratio_to_gym-default": 1.0},
        ],
    )
    assert figures.classic_control()[1] == "2.00-3.50x / 1.25x"


def test_a_family_without_a_record_has_no_row(records):
    assert figures.table().splitlines() == [figures.HEADER, "|---|---|---|"]


def test_replacing_refuses_a_readme_without_the_table_header():
    with pytest.raises(ValueError, match=r"has no line .* starting the speed table"):
        figures.replace_table("# A README\n\nno table\n", figures.table())


def test_check_fails_on_a_stale_readme(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "README.md"
    stale.write_text(f"# Title\n\n{figures.HEADER}\n|---|---|---|\n| stale | 9.99x | x |\n\nEnd\n")
    monkeypatch.setattr(figures, "README", stale)
    assert figures.main(["--check"]) == 1
    assert "run python benchmarks/readme_figures.py --write" in capsys.readouterr().err
    assert figures.main(["--write"]) == 0
    assert figures.main(["--check"]) == 0
    assert stale.read_text().endswith("\n\nEnd\n")
