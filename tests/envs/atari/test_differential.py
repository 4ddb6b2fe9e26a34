"""Step-for-step equality with ale-py 0.12's own Atari envs (the oracle).

Same seed and actions: identical observations, rewards, flags and infos, across episode
boundaries. The default suite runs two games and one case per constructor option, 200 steps
or fewer each (every ROM load costs a tenth of a second); the ``slow`` cases run every ROM and
every legacy id.
"""

from __future__ import annotations

import ale_py.env
import numpy as np
import pytest

from palaestra.envs._atari_ids import LEGACY_GAMES, MULTIPLAYER_ONLY, ROM_IDS, game_name
from palaestra.envs.atari import AtariEnv
from tests.envs.atari.conftest import compare_ids, run_side_by_side

V5 = {
    "repeat_action_probability": 0.25,
    "full_action_space": False,
    "frameskip": 4,
    "max_num_frames_per_episode": 108_000,
}


@pytest.mark.parametrize("env_id", ["ALE/Pong-v5", "ALE/Breakout-v5"])
def test_v5_games_match_ale_py_for_200_steps(env_id):
    compare_ids(env_id, seed=0, steps=200)


@pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")
def test_a_frame_skip_range_draws_the_same_skips_as_ale_py():
    # v0: a frame skip drawn from range(2, 5) every step, from the env's own generator.
    compare_ids("Breakout-v0", seed=3, steps=150)


def test_no_frameskip_v4_matches_ale_py():
    compare_ids("PongNoFrameskip-v4", seed=1, steps=200)


@pytest.mark.parametrize("obs_type", ["grayscale", "ram"])
def test_each_observation_type_matches_ale_py(obs_type):
    compare_ids("ALE/Breakout-v5", seed=2, steps=100, obs_type=obs_type)


def test_the_full_action_space_matches_ale_py():
    compare_ids("ALE/Pong-v5", seed=4, steps=100, full_action_space=True)


def test_continuous_actions_match_ale_py():
    compare_ids("ALE/Breakout-v5", seed=5, steps=150, continuous=True)


def test_a_continuous_threshold_matches_ale_py():
    compare_ids(
        "ALE/Breakout-v5", seed=6, steps=100, continuous=True, continuous_action_threshold=0.2
    )


def test_mode_and_difficulty_match_ale_py():
    compare_ids("ALE/Pong-v5", seed=7, steps=100, mode=1, difficulty=1)


def test_truncation_after_the_frame_limit_matches_ale_py():
    # 50 steps of 4 frames: truncated at step 50, then reset, 3 times over.
    episodes = compare_ids("ALE/Pong-v5", seed=8, steps=150, max_num_frames_per_episode=200)
    assert episodes == 4


def test_without_sticky_actions_matches_ale_py():
    compare_ids("ALE/Pong-v5", seed=9, steps=100, repeat_action_probability=0.0)


def test_sound_observations_match_ale_py():
    compare_ids("ALE/Pong-v5", seed=10, steps=50, sound_obs=True)


def test_rgb_array_frames_match_ale_py(make_pair):
    ours, theirs = make_pair("ALE/Breakout-v5", render_mode="rgb_array")
    ours.reset(seed=11)
    theirs.reset(seed=11)
    for action in [1, 2, 2, 3, 0] * 4:
        ours.step(action)
        theirs.step(action)
        np.testing.assert_array_equal(ours.render(), theirs.render())


def test_episodes_continue_alike_after_a_game_over():
    # Breakout with random actions loses its five lives within 200 steps of 4 frames.
    episodes = compare_ids("ALE/Breakout-v5", seed=12, steps=600, repeat_action_probability=0.0)
    assert episodes >= 2


@pytest.mark.slow
@pytest.mark.parametrize("game", [rom for rom in ROM_IDS if rom not in MULTIPLAYER_ONLY])
def test_every_rom_matches_ale_py_with_v5_settings(game):
    ours, theirs = AtariEnv(game, **V5), ale_py.env.AtariEnv(game, **V5)
    run_side_by_side(ours, theirs, seed=0, steps=300)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")  # v0, on both sides
@pytest.mark.parametrize("game", LEGACY_GAMES)
@pytest.mark.parametrize("variant", ["-v0", "-v4", "NoFrameskip-v0", "NoFrameskip-v4"])
def test_every_legacy_id_matches_ale_py(game, variant):
    compare_ids(f"{game_name(game)}{variant}", seed=1, steps=200)
