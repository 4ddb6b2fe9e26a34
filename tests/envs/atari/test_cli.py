"""``palaestra check``, ``bench`` and ``record`` on the Atari ids (headless, ``rgb_array``)."""

from __future__ import annotations

import json

import pytest

import palaestra
from palaestra.cli import main
from tests.envs.atari.test_errors import threads


def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_check_passes_an_atari_id_and_skips_human_rendering_without_a_display(capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)

    status, out, _ = run_cli(capsys, "check", "ALE/Pong-v5")

    assert status == 0
    assert out.splitlines()[-1] == "OK: ALE/Pong-v5 follows the palaestra API"
    assert "skipped: render_mode='human' needs a window" in out


def test_bench_measures_the_batched_atari_env_beside_sync(capsys):
    status, out, _ = run_cli(
        capsys, "bench", "ALE/Pong-v5", "--modes", "native,sync", "--num-envs", "2",
        "--steps", "3", "--repeats", "1", "--reference", "sync", "--json",
    )  # fmt: skip

    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert status == 0
    assert {row["mode"] for row in rows} == {"native", "sync"}
    assert all(row["num_envs"] == 2 and row["steps_per_s"] > 0 for row in rows)


def test_bench_leaves_no_emulator_threads_behind(capsys):
    before = threads()

    run_cli(capsys, "bench", "ALE/Pong-v5", "--modes", "native", "--num-envs", "2",
            "--steps", "2", "--repeats", "1", "--reference", "native", "--json")  # fmt: skip

    assert threads() == before


def test_record_writes_every_frame_of_an_atari_episode(capsys, tmp_path):
    pytest.importorskip("imageio_ffmpeg")
    from tests.wrappers.test_rendering_support import read_video

    out = tmp_path / "breakout.mp4"
    status, stdout, _ = run_cli(capsys, "record", "ALE/Breakout-v5", "--out", str(out),
                                "--seed", "1")  # fmt: skip

    frames = read_video(str(out))
    assert status == 0
    assert stdout.splitlines()[-1].startswith(f"wrote {len(frames)} frames of 1 episode(s) to ")
    assert len(frames) > 100


def test_the_batch_takes_no_render_mode_and_says_what_to_do():
    with pytest.raises(palaestra.error.Error) as info:
        palaestra.make_vec("ALE/Pong-v5", 2, render_mode="human")

    assert "\n" not in str(info.value)
    assert "vectorization_mode='sync'" in str(info.value)
