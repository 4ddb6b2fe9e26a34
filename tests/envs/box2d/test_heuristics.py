"""The hand-written controllers: the lander lands and the walker walks."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import palaestra
from palaestra.envs.box2d.bipedal_walker import BipedalWalkerHeuristics
from palaestra.envs.box2d.lunar_lander import demo_heuristic_lander, heuristic


def heuristic_returns(env_id: str, seeds: range) -> list[float]:
    env = palaestra.make(env_id)
    returns = []
    for seed in seeds:
        observation, _ = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(heuristic(env, observation))
            total += reward
            done = terminated or truncated
        returns.append(total)
    return returns


def test_heuristic_lander_lands_with_a_mean_return_above_200_over_100_seeded_episodes():
    returns = heuristic_returns("LunarLander-v3", range(100))
    assert np.mean(returns) >= 200
    assert round(float(np.mean(returns)), 2) == 252.83


@pytest.mark.slow
def test_continuous_heuristic_lander_lands_with_a_mean_return_above_200_over_100_episodes():
    returns = heuristic_returns("LunarLanderContinuous-v3", range(100))
    assert np.mean(returns) >= 200
    assert round(float(np.mean(returns)), 2) == 280.34


def test_heuristic_returns_gymnasium_actions(gymnasium):
    from gymnasium.envs.box2d.lunar_lander import heuristic as reference

    for continuous in (False, True):
        env = palaestra.make("LunarLander-v3", continuous=continuous)
        observation, _ = env.reset(seed=11)
        for _ in range(200):
            action = heuristic(env, observation)
            np.testing.assert_array_equal(action, reference(env, observation))
            observation, *_ = env.step(action)


def test_demo_heuristic_lander_prints_progress_and_returns_the_episode_return(gymnasium):
    from gymnasium.envs.box2d.lunar_lander import demo_heuristic_lander as reference

    ours, theirs = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(ours):
        total = demo_heuristic_lander(palaestra.make("LunarLander-v3"), seed=2)
    with contextlib.redirect_stdout(theirs):
        expected = reference(gymnasium.make("LunarLander-v3"), seed=2)
    assert total == pytest.approx(expected, abs=1e-9)
    assert ours.getvalue() == theirs.getvalue()
    assert "total_reward" in ours.getvalue()


def test_heuristic_walker_walks_the_whole_terrain_without_falling():
    env = palaestra.make("BipedalWalker-v3")
    walker = BipedalWalkerHeuristics()
    observation, _ = env.reset(seed=0)
    total, steps, done = 0.0, 0, False
    while not done:
        observation, reward, terminated, truncated, _ = env.step(walker.step_heuristic(observation))
        total += reward
        steps += 1
        done = terminated or truncated
    assert not env.unwrapped.game_over
    assert env.unwrapped.hull.position.x > 85  # the finish line is at 88.7
    assert total > 300  # BipedalWalker-v3's reward threshold
    assert steps == 1600


def test_heuristic_walker_gives_gymnasium_actions(gymnasium):
    from gymnasium.envs.box2d.bipedal_walker import BipedalWalkerHeuristics as Reference

    env = palaestra.make("BipedalWalker-v3")
    ours, theirs = BipedalWalkerHeuristics(), Reference()
    observation, _ = env.reset(seed=1)
    for _ in range(300):
        action = ours.step_heuristic(observation)
        np.testing.assert_array_equal(action, theirs.step_heuristic(observation))
        observation, *_ = env.step(action)


def test_heuristic_walkers_do_not_share_state():
    first, second = BipedalWalkerHeuristics(), BipedalWalkerHeuristics()
    observation = np.zeros(24, dtype=np.float32)
    observation[2] = 1.0  # fast enough to switch legs
    first.step_heuristic(observation)
    assert second.a.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert second.state == BipedalWalkerHeuristics.STAY_ON_ONE_LEG
