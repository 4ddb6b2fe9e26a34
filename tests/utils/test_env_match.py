"""check_environments_match accepts identical envs and names the first difference."""

import numpy as np
import pytest

import palaestra
from palaestra.utils.env_match import check_environments_match
from tests.fixtures.counting_env import counting_env_class, make_counting_env


class Shifted(counting_env_class(palaestra)):
    """Like CountingEnv but with different rewards and an extra info key."""

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, reward + 1, terminated, truncated, {**info, "extra": 0}


def test_identical_envs_match_across_episode_ends():
    env_a = make_counting_env(palaestra, terminate_at=3)
    env_b = make_counting_env(palaestra, terminate_at=3)
    check_environments_match(env_a, env_b, num_steps=10)
    assert env_a.resets == env_b.resets == 4


def test_a_reward_difference_is_reported_with_its_step():
    with pytest.raises(AssertionError, match=r"stepping \(step = 0\) rew is not equivalent"):
        check_environments_match(
            make_counting_env(palaestra), Shifted(), num_steps=3, info_comparison="skip"
        )


def test_skipped_rewards_and_superset_infos_match():
    check_environments_match(
        make_counting_env(palaestra),
        Shifted(),
        num_steps=3,
        skip_rew=True,
        info_comparison="superset",
    )


def test_infos_differ_under_equivalence():
    with pytest.raises(AssertionError, match="info is not equivalent"):
        check_environments_match(make_counting_env(palaestra), Shifted(), 3, skip_rew=True)


def test_keys_superset_only_looks_at_keys():
    check_environments_match(
        make_counting_env(palaestra), Shifted(), 3, skip_rew=True, info_comparison="keys-superset"
    )


def test_renders_are_compared_when_both_render_frames():
    env_a = make_counting_env(palaestra, render_mode="ansi")
    env_b = make_counting_env(palaestra, render_mode="ansi", terminate_at=100)
    with pytest.raises(AssertionError, match="terminal is not equivalent"):
        check_environments_match(env_a, env_b, num_steps=6)


def test_an_unknown_info_comparison_is_rejected():
    with pytest.raises(ValueError, match="info_comparison='all' is not one of"):
        check_environments_match(
            make_counting_env(palaestra), make_counting_env(palaestra), 1, info_comparison="all"
        )


def test_different_action_spaces_do_not_match():
    env_b = make_counting_env(palaestra)
    env_b.action_space = palaestra.spaces.Discrete(4)
    with pytest.raises(AssertionError, match="The action spaces differ"):
        check_environments_match(make_counting_env(palaestra), env_b, 1)


def test_palaestra_cartpole_matches_gymnasium_cartpole_for_500_steps():
    gymnasium = pytest.importorskip("gymnasium")
    ours = palaestra.make("CartPole-v1", disable_env_checker=True)
    theirs = gymnasium.make("CartPole-v1", disable_env_checker=True)
    # Different libraries own different action-space classes; compare through palaestra's.
    theirs.action_space = ours.action_space
    theirs.observation_space = ours.observation_space
    check_environments_match(ours, theirs, num_steps=500, seed=7)
    assert np.isfinite(ours.unwrapped.state).all()
