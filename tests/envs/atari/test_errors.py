"""Bad input to the Atari envs, single and batched: clear errors naming the value and choices.

Several of these inputs end the whole process inside ALE if they reach it (a missing ROM
file, a ROM without a single-player mode); the tests running at all shows they do not.
"""

from __future__ import annotations

import os
import subprocess
import sys

import ale_py.env
import numpy as np
import pytest

import palaestra
from palaestra.envs.atari import AtariEnv
from palaestra.envs.atari.vector import AtariVectorEnv


def rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def raised(function, *args, **kwargs) -> BaseException:
    with pytest.raises(Exception) as info:
        function(*args, **kwargs)
    return info.value


def test_an_unknown_game_names_it_the_closest_games_and_all_choices():
    message = str(raised(AtariEnv, "space_invader"))

    assert message.startswith(
        "Unknown Atari game 'space_invader' (did you mean 'space_invaders'?). "
        "The games are the snake_case names of ale-py's ROMs: adventure, air_raid, alien, "
    )
    assert message.endswith(", wizard_of_wor, word_zapper, yars_revenge, zaxxon.")
    assert "combat" not in message  # refused below: no single-player mode


def test_an_unknown_game_is_a_palaestra_error():
    with pytest.raises(palaestra.error.Error):
        AtariEnv("chess960")


@pytest.mark.parametrize("game", ["combat", "joust", "maze_craze", "warlords"])
def test_a_rom_without_a_single_player_mode_is_refused(game):
    with pytest.raises(palaestra.error.Error, match=f"'{game}' has no single-player mode"):
        AtariEnv(game)


def test_a_missing_rom_names_its_path_and_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("ALE_ROMS_DIR", str(tmp_path))

    with pytest.raises(FileNotFoundError) as info:
        AtariEnv("pong")
    assert f"The ROM of 'pong' is missing: {tmp_path / 'pong.bin'} does not exist" in str(
        info.value
    )
    assert "ALE_ROMS_DIR" in str(info.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"obs_type": "pixels"},
        {"frameskip": 0},
        {"frameskip": 2.5},
        {"frameskip": (2,)},
        {"frameskip": (3, 3)},
        {"frameskip": (0, 2)},
        {"render_mode": "ansi"},
    ],
    ids=repr,
)
def test_bad_arguments_raise_ale_pys_error_type_and_message(kwargs):
    ours, theirs = raised(AtariEnv, "pong", **kwargs), raised(ale_py.env.AtariEnv, "pong", **kwargs)

    assert type(ours).__name__ == type(theirs).__name__ == "Error"
    assert str(theirs) in str(ours)


def test_a_wrong_obs_type_names_the_value_and_the_choices():
    message = str(raised(AtariEnv, "pong", obs_type="pixels"))

    assert message == "Invalid observation type: pixels. Expecting: rgb, grayscale, ram."


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"mode": 7}, "Invalid game mode requested: mode=7; 'pong' has modes [0, 1]."),
        (
            {"difficulty": 9},
            "Invalid difficulty requested: difficulty=9; 'pong' has difficulties [0, 1, 2, 3].",
        ),
    ],
)
def test_a_mode_or_difficulty_the_game_lacks_lists_the_games_choices(kwargs, expected):
    ours, theirs = raised(AtariEnv, "pong", **kwargs), raised(ale_py.env.AtariEnv, "pong", **kwargs)

    assert type(ours) is type(theirs) is RuntimeError
    assert str(ours) == expected
    assert str(theirs).rstrip(".") in str(ours)


@pytest.mark.parametrize("action", [6, -1, 1.5, "1", None, np.int64(6)], ids=repr)
def test_an_action_outside_the_space_names_it_and_the_space(action):
    env = AtariEnv("pong")
    env.reset(seed=0)

    with pytest.raises(palaestra.error.InvalidAction) as info:
        env.step(action)
    assert str(info.value).startswith(f"Invalid action {action!r}: the action space is Discrete(6)")
    assert env.step(np.int64(5))[0].shape == (210, 160, 3)  # the env carries on


def test_a_continuous_action_of_the_wrong_shape_is_refused():
    env = AtariEnv("pong", continuous=True)
    env.reset(seed=0)

    with pytest.raises(
        palaestra.error.InvalidAction, match=r"shape \(2,\).*\[radius, theta, fire\]"
    ):
        env.step(np.zeros(2, dtype=np.float32))


def test_human_rendering_without_a_display_fails_in_one_line(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)

    with pytest.raises(palaestra.error.Error) as info:
        palaestra.make("ALE/Pong-v5", render_mode="human")
    message = str(info.value)
    assert message.startswith("render_mode='human' cannot open a window: ")
    assert "render_mode='rgb_array'" in message and "\n" not in message


def test_a_closed_env_says_so_when_used():
    env = palaestra.make("ALE/Pong-v5")
    env.reset(seed=0)
    env.close()
    env.close()  # closing again is harmless

    with pytest.raises(palaestra.error.ClosedEnvironmentError, match="closed"):
        env.unwrapped.step(0)


def test_closing_releases_the_emulator_even_while_the_env_is_kept():
    # 20 emulators left alive would hold about 14 MiB; RAM observations keep the spaces small.
    kept = [AtariEnv("pong", obs_type="ram") for _ in range(3)]
    for env in kept:
        env.close()
    before = rss_mib()
    for _ in range(20):
        env = AtariEnv("pong", obs_type="ram")
        env.reset()
        env.step(0)
        env.close()
        kept.append(env)

    assert rss_mib() - before < 5


@pytest.mark.slow
@pytest.mark.timeout(1800)  # a ROM load per cycle: 0.1-0.4 s each on a busy 2-core machine
def test_a_thousand_create_close_cycles_stay_flat():
    for _ in range(50):
        palaestra.make("ALE/Pong-v5").close()
    before = rss_mib()
    for _ in range(1000):
        env = palaestra.make("ALE/Pong-v5")
        env.reset()
        env.step(0)
        env.close()

    assert rss_mib() - before < 10


# The batched env (AtariVectorEnv, make_vec's default for the ALE/*-v5 ids) ---------------


def threads() -> int:
    """The threads of this process, C++ ones included (Python's count sees only its own)."""
    return len(os.listdir("/proc/self/task"))


def test_the_batch_names_an_unknown_game_and_the_choices():
    message = str(raised(AtariVectorEnv, "space_invader", 2))

    assert message.startswith("Unknown Atari game 'space_invader' (did you mean 'space_invaders'?)")
    assert "breakout" in message


def test_the_batch_names_a_missing_rom_and_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("ALE_ROMS_DIR", str(tmp_path))

    with pytest.raises(FileNotFoundError, match=r"The ROM of 'pong' is missing: .*ALE_ROMS_DIR"):
        palaestra.make_vec("ALE/Pong-v5", 2)


@pytest.mark.parametrize("obs_type", ["ram", "pixels"])
def test_the_batch_names_a_wrong_obs_type_and_the_choices(obs_type):
    message = str(raised(palaestra.make_vec, "ALE/Pong-v5", 2, obs_type=obs_type))

    assert message.startswith(
        f"Invalid observation type {obs_type!r} for the batched Atari env: expecting one of "
        "grayscale, rgb"
    )
    assert "vectorization_mode='sync'" in message


def test_the_batch_takes_obs_type_rgb_as_colour_frames():
    envs = palaestra.make_vec("ALE/Pong-v5", 2, obs_type="rgb")

    assert envs.single_observation_space.shape == (4, 84, 84, 3)
    envs.close()


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"frameskip": (2, 5)}, "Invalid frameskip (2, 5)"),
        ({"mode": 1}, "takes no mode (got mode=1)"),
        ({"render_mode": "rgb_array"}, "takes no render_mode (got render_mode='rgb_array')"),
    ],
    ids=repr,
)
def test_the_batch_refuses_single_env_options_pointing_to_sync_mode(kwargs, fragment):
    message = str(raised(AtariVectorEnv, "pong", 2, **kwargs))

    assert fragment in message and "vectorization_mode='sync'" in message


@pytest.mark.parametrize(
    "actions",
    [np.array([0, 6]), np.array([-1, 0]), np.array([0.5, 1.0]), np.array([True, False])],
    ids=repr,
)
def test_the_batch_names_an_out_of_range_action_and_the_choices(actions):
    envs = AtariVectorEnv("pong", 2)
    envs.reset(seed=0)

    with pytest.raises(palaestra.error.InvalidAction) as info:
        envs.step(actions)
    assert str(info.value).startswith(
        f"Invalid actions {actions!r}: each sub-env's action space is Discrete(6), so an "
        "action is an int in [0, 6) (0: NOOP, 1: FIRE, 2: RIGHT, 3: LEFT, 4: RIGHTFIRE, "
    )
    assert envs.step(np.array([5, 5]))[0].shape == (2, 4, 84, 84)  # the batch carries on
    envs.close()


def test_the_batch_refuses_a_batch_of_the_wrong_shape():
    envs = AtariVectorEnv("pong", 2)
    envs.reset(seed=0)

    with pytest.raises(ValueError, match=r"expects actions of shape \(2,\).*got shape \(3,\)"):
        envs.step(np.zeros(3, dtype=np.int64))
    envs.close()


def test_closing_the_batch_stops_its_threads():
    before = threads()
    envs = AtariVectorEnv("pong", 4, num_threads=2)
    envs.reset(seed=0)
    envs.step(np.zeros(4, dtype=np.int64))
    running = threads()
    envs.close()

    assert running == before + 2
    assert threads() == before


def test_closing_the_batch_while_a_step_is_in_flight_is_safe():
    envs = AtariVectorEnv("pong", 2)
    envs.reset(seed=0)
    envs.send(np.zeros(2, dtype=np.int64))
    envs.close()

    with pytest.raises(palaestra.error.ClosedEnvironmentError):
        envs.reset()


CYCLES_SCRIPT = """
import os, sys
import numpy as np
import palaestra

def threads():
    return len(os.listdir("/proc/self/task"))

def rss_mib():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20

cycles, num_envs = int(sys.argv[1]), int(sys.argv[2])
def cycle():
    envs = palaestra.make_vec("ALE/Pong-v5", num_envs)
    envs.reset(seed=0)
    envs.step(np.zeros(num_envs, dtype=np.int64))
    envs.close()

for _ in range(3):
    cycle()
before_threads, before_rss = threads(), rss_mib()
for _ in range(cycles):
    cycle()
print(threads() - before_threads, rss_mib() - before_rss)
"""


def cycle_growth(cycles: int, num_envs: int) -> tuple[int, float]:
    """Threads and MiB of RSS gained over ``cycles`` make/reset/step/close cycles.

    Measured in a fresh process: a long test process's allocator moves by several MiB
    on its own, which would hide a leak or fail a clean run.
    """
    finished = subprocess.run(
        [sys.executable, "-c", CYCLES_SCRIPT, str(cycles), str(num_envs)],
        capture_output=True,
        text=True,
        check=True,
    )
    thread_growth, rss_growth = finished.stdout.split()
    return int(thread_growth), float(rss_growth)


def test_twenty_batches_made_and_closed_leave_no_threads_or_memory():
    thread_growth, rss_growth = cycle_growth(20, 4)

    assert thread_growth == 0
    assert rss_growth < 5


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_thousand_batch_create_close_cycles_stay_flat():
    thread_growth, rss_growth = cycle_growth(1000, 2)

    assert thread_growth == 0
    assert rss_growth < 10
