"""``palaestra bench --help`` describes the output the command prints."""

import contextlib
import json

from palaestra.cli import main


def _help(capsys) -> str:
    with contextlib.suppress(SystemExit):  # argparse exits after printing the help
        main(["bench", "--help"])
    return " ".join(capsys.readouterr().out.split())


def _bench(capsys, *extra) -> str:
    arguments = ["bench", "CartPole-v1", "--modes", "native", "--num-envs", "2"]
    assert main([*arguments, "--steps", "3", "--repeats", "1", *extra]) == 0
    return capsys.readouterr().out


def test_bench_help_says_a_table_by_default_and_json_lines_with_the_flag(capsys):
    text = _help(capsys)
    assert "Prints a table of steps/s" in text
    assert "--json prints one JSON line per measurement instead" in text


def test_bench_prints_a_table_by_default(capsys, monkeypatch):
    monkeypatch.delenv("PALAESTRA_BENCH_FORMAT", raising=False)
    lines = _bench(capsys).splitlines()
    assert lines[0] == "CartPole-v1 env-steps/s (ratio to gym-native)"
    assert lines[1].split() == ["mode", "N=2"]


def test_bench_json_prints_one_json_line_per_measurement(capsys):
    (line,) = _bench(capsys, "--json").splitlines()
    assert json.loads(line)["mode"] == "native"
