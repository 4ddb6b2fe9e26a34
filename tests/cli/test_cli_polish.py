"""Command-line polish: bench's exit status, table and skip notes; check without SDL noise."""

import subprocess
import sys
from pathlib import Path

from palaestra.cli import main

REPO_ROOT = Path(__file__).resolve().parents[2]
QUICK = ["--steps", "3", "--repeats", "1", "--num-envs", "2"]


def test_bench_with_a_typod_id_exits_2_with_one_line(capsys):
    # Before: 18 error JSON lines and exit status 0.
    assert main(["bench", "CartPol-v1", *QUICK]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Did you mean: `CartPole`?" in captured.err


def test_bench_prints_a_human_readable_table_by_default(capsys):
    assert (
        main(["bench", "CartPole-v1", "--modes", "native,sync", "--reference", "sync", *QUICK]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "CartPole-v1 env-steps/s (ratio to sync)"
    assert lines[1].split() == ["mode", "N=2"]
    assert [line.split()[0] for line in lines[2:]] == ["native", "sync"]
    assert lines[3].endswith("(1.00x)")


def test_bench_names_the_modes_it_skipped_and_why(capsys):
    assert (
        main(["bench", "CartPole-v1", "--modes", "native,sync", "--max-envs", "sync=1", *QUICK])
        == 0
    )
    out = capsys.readouterr().out
    assert "skipped sync at N=2: above its --max-envs limit of 1" in out


def test_bench_json_flag_prints_json_lines(capsys):
    assert main(["bench", "CartPole-v1", "--modes", "native", "--json", *QUICK]) == 0
    assert capsys.readouterr().out.startswith('{"env_id": "CartPole-v1", "mode": "native"')


def test_bench_exits_1_when_a_mode_fails_to_run(capsys, monkeypatch):
    from palaestra.cli import bench

    def broken(env_id, num_envs):
        raise RuntimeError("cannot start")

    monkeypatch.setitem(bench.MODES, "sync", (broken, None))
    assert main(["bench", "CartPole-v1", "--modes", "native,sync", *QUICK]) == 1
    assert "skipped sync at N=2: failed (RuntimeError: cannot start)" in capsys.readouterr().out


def test_check_without_a_display_prints_no_sdl_noise():
    # Before: `error: XDG_RUNTIME_DIR is invalid...` and then OK.
    environment = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "palaestra", "check", "CartPole-v1"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=environment,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "XDG_RUNTIME_DIR" not in result.stdout + result.stderr
    assert "ALSA" not in result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "OK: CartPole-v1 follows the palaestra API"
