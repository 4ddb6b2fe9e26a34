"""Vector normalizers: autoreset-aware learning and statistics that can be kept."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

import palaestra
from palaestra.vector import AutoresetMode
from palaestra.wrappers.vector import NormalizeObservation, NormalizeReward
from tests.wrappers.vector.differential import assert_same, sample_actions, vector_rollout


def cartpole_envs(mode=AutoresetMode.NEXT_STEP, num_envs=3, max_episode_steps=5):
    return palaestra.make_vec(
        "CartPole-v1",
        num_envs,
        vectorization_mode="sync",
        max_episode_steps=max_episode_steps,
        vector_kwargs={"autoreset_mode": mode},
    )


def test_reward_normalizer_skips_the_dummy_autoreset_step_in_next_step_mode():
    envs = NormalizeReward(cartpole_envs(num_envs=1, max_episode_steps=3))
    envs.reset(seed=0)
    for _ in range(4):  # three real steps, then the step that only resets
        envs.step(np.array([0]))
    assert envs.return_rms.count == pytest.approx(3 + 1e-4)


def test_reward_normalizer_learns_from_every_step_in_same_step_mode():
    envs = NormalizeReward(cartpole_envs(AutoresetMode.SAME_STEP, num_envs=1, max_episode_steps=3))
    envs.reset(seed=0)
    for _ in range(4):
        envs.step(np.array([0]))
    assert envs.return_rms.count == pytest.approx(4 + 1e-4)


def test_same_step_return_restarts_when_an_episode_ends():
    envs = NormalizeReward(cartpole_envs(AutoresetMode.SAME_STEP, num_envs=1, max_episode_steps=2))
    envs.reset(seed=0)
    envs.step(np.array([0]))
    envs.step(np.array([0]))
    assert envs.accumulated_reward.tolist() == [0.0]


def test_observation_normalizer_refuses_partial_resets():
    envs = NormalizeObservation(cartpole_envs())
    with pytest.raises(ValueError, match="partial resets"):
        envs.reset(seed=0, options={"reset_mask": np.array([True, False, True])})


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        (AutoresetMode.SAME_STEP, "cannot transform `final_obs` of SAME_STEP autoreset"),
        (AutoresetMode.DISABLED, "to be AutoresetMode.NEXT_STEP, got AutoresetMode.DISABLED"),
    ],
)
def test_observation_normalizer_needs_next_step_autoreset(mode, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        NormalizeObservation(cartpole_envs(mode))


@pytest.fixture(params=[NormalizeObservation, NormalizeReward], ids=["observation", "reward"])
def trained(request):
    envs = request.param(cartpole_envs())
    vector_rollout(envs, sample_actions(envs.action_space, 40), "NEXT_STEP")
    return envs


def test_frozen_normalizer_keeps_its_statistics(trained):
    trained.update_running_mean = False
    before = trained.get_state()
    vector_rollout(trained, sample_actions(trained.action_space, 10), "NEXT_STEP")
    assert_same(trained.get_state(), before)


def test_restored_statistics_give_the_same_outputs(trained):
    trained.update_running_mean = False
    evaluation = type(trained)(cartpole_envs())
    evaluation.set_state(trained.get_state())
    evaluation.update_running_mean = False
    actions = sample_actions(trained.action_space, 12)
    assert_same(
        vector_rollout(evaluation, actions, "NEXT_STEP"),
        vector_rollout(trained, actions, "NEXT_STEP"),
    )


def test_statistics_survive_pickling(trained):
    # The vector env itself holds env factories; the statistics object pickles on its own.
    statistics = trained.obs_rms if hasattr(trained, "obs_rms") else trained.return_rms
    restored = pickle.loads(pickle.dumps(statistics))
    assert_same(restored.get_state(), trained.get_state())
