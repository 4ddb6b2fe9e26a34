"""``palaestra record``: one readable mp4 holding every frame of the recorded episodes."""

from __future__ import annotations

import contextlib
import io
import re
import sys
import types

import numpy as np
import pytest

import palaestra as gym
from palaestra.cli import main
from tests.wrappers.test_rendering_support import read_video, video_fps

pytest.importorskip("imageio_ffmpeg")

EPISODE_LINE = re.compile(r"^episode \d+: return=\S+ length=(\d+)$", re.MULTILINE)


def record(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["record", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def random_episode_lengths(env_id: str, episodes: int, seed: int) -> list[int]:
    """Episode lengths of the documented seeding: seeded first reset and action space."""
    env = gym.make(env_id)
    env.action_space.seed(seed)
    lengths = []
    for episode in range(episodes):
        env.reset(seed=seed if episode == 0 else None)
        length, done = 0, False
        while not done:
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            length, done = length + 1, terminated or truncated
        lengths.append(length)
    return lengths


@pytest.fixture
def out(tmp_path):
    return str(tmp_path / "cart.mp4")


@pytest.fixture(scope="module")
def two_episodes(tmp_path_factory):
    """Record two seeded CartPole episodes once: (exit status, stdout, output path)."""
    out = str(tmp_path_factory.mktemp("record") / "two.mp4")
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        status = main(["record", "CartPole-v1", "--episodes", "2", "--out", out, "--seed", "3"])
    return status, stdout.getvalue(), out


def test_video_holds_reset_and_step_frames_of_every_episode(two_episodes):
    status, _, out = two_episodes
    lengths = random_episode_lengths("CartPole-v1", episodes=2, seed=3)
    assert status == 0
    assert read_video(out).shape == (sum(lengths) + 2, 400, 600, 3)


def test_prints_each_episode_and_the_frame_count(two_episodes):
    _, stdout, out = two_episodes
    lengths = [int(n) for n in EPISODE_LINE.findall(stdout)]
    assert lengths == random_episode_lengths("CartPole-v1", episodes=2, seed=3)
    assert stdout.splitlines()[-1] == f"wrote {sum(lengths) + 2} frames of 2 episode(s) to {out}"


def test_same_seed_gives_the_same_video(capsys, two_episodes, tmp_path):
    again = str(tmp_path / "again.mp4")
    record(capsys, "CartPole-v1", "--episodes", "2", "--out", again, "--seed", "3")
    np.testing.assert_array_equal(read_video(two_episodes[2]), read_video(again))


def test_fps_defaults_to_render_fps(capsys, out):
    record(capsys, "CartPole-v1", "--out", out, "--seed", "0")
    assert video_fps(out) == 50


def test_fps_option_sets_the_frame_rate(capsys, out):
    record(capsys, "CartPole-v1", "--out", out, "--seed", "0", "--fps", "20")
    assert video_fps(out) == 20


@pytest.fixture
def policy_module(monkeypatch):
    """A module ``recording_policies`` with an always-push-right policy that counts calls."""
    module = types.ModuleType("recording_policies")
    module.calls = 0

    def push_right(observation):
        module.calls += 1
        return 1

    module.push_right = push_right
    module.not_callable = 3
    monkeypatch.setitem(sys.modules, "recording_policies", module)
    return module


def test_policy_chooses_every_action(capsys, out, policy_module):
    record(
        capsys,
        "CartPole-v1",
        "--out",
        out,
        "--seed",
        "0",
        "--policy",
        "recording_policies:push_right",
    )
    assert policy_module.calls == len(read_video(out)) - 1


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ("no_colon", "expects MODULE:CALLABLE"),
        ("recording_policies:missing", "could not be loaded"),
        ("no_such_module_xyz:f", "could not be loaded"),
        ("recording_policies:not_callable", "is a int, not a callable"),
    ],
)
def test_bad_policy_is_a_usage_error(capsys, out, policy_module, policy, message):
    status, _, stderr = record(capsys, "CartPole-v1", "--out", out, "--policy", policy)
    assert status == 2
    assert message in stderr


def test_unknown_env_is_a_usage_error(capsys, out):
    status, _, stderr = record(capsys, "NoSuchEnv-v0", "--out", out)
    assert status == 2
    assert stderr.startswith("palaestra record: error:")


def test_missing_output_folder_is_a_usage_error(capsys, tmp_path):
    status, _, stderr = record(capsys, "CartPole-v1", "--out", str(tmp_path / "nope" / "a.mp4"))
    assert status == 2
    assert "does not exist" in stderr


def test_env_without_rgb_frames_is_a_usage_error(capsys, out):
    gym.register("palaestra_tests/TextOnly-v0", entry_point="tests.cli.test_record:TextOnlyEnv")
    try:
        status, _, stderr = record(capsys, "palaestra_tests/TextOnly-v0", "--out", out)
    finally:
        del gym.envs.registration.registry["palaestra_tests/TextOnly-v0"]
    assert status == 2
    assert "does not render 'rgb_array' frames (its render modes: ['ansi'])" in stderr


class TextOnlyEnv(gym.Env):
    metadata = {"render_modes": ["ansi"]}

    def __init__(self, render_mode=None):
        self.render_mode = render_mode
        self.observation_space = gym.spaces.Discrete(1)
        self.action_space = gym.spaces.Discrete(1)


@pytest.mark.parametrize("bad", ["0", "-1", "x"])
def test_episodes_must_be_positive(capsys, out, bad):
    with pytest.raises(SystemExit) as exit_info:
        main(["record", "CartPole-v1", "--out", out, "--episodes", bad])
    assert exit_info.value.code == 2


def test_an_out_that_is_not_an_mp4_is_a_usage_error(capsys, tmp_path):
    # Before: --out x.gif ended in imageio's RuntimeError traceback.
    out = str(tmp_path / "x.gif")
    assert main(["record", "CartPole-v1", "--out", out]) == 2
    assert capsys.readouterr().err == (
        f"palaestra record: error: --out {out!r}: record writes h264 mp4 files; name a file "
        "ending in .mp4.\n"
    )
