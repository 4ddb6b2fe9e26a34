"""``make(wrapped_env.spec)`` rebuilds the image, dict-observation and rendering wrappers too.

These wrappers need rendered frames or dict observations, which a registered env gives only
through AddRenderObservation, so each case is a stack built on a rendering CartPole.
"""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra import wrappers
from tests.wrappers.vector.differential import assert_same, rollout, sample_actions

pytest.importorskip("pygame")


def pixels(env):
    return wrappers.AddRenderObservation(env, render_only=True)


def pixels_and_state(env):
    return wrappers.AddRenderObservation(env, render_only=False)


STACKS = {
    "AddRenderObservation": lambda env: pixels_and_state(env),
    "FilterObservation": lambda env: wrappers.FilterObservation(
        pixels_and_state(env), filter_keys=["state"]
    ),
    "GrayscaleObservation": lambda env: wrappers.GrayscaleObservation(pixels(env), keep_dim=True),
    "ResizeObservation": lambda env: wrappers.ResizeObservation(pixels(env), shape=(20, 30)),
    "AddWhiteNoise": lambda env: wrappers.AddWhiteNoise(env, probability_of_noise_per_pixel=0.3),
    "ObstructView": lambda env: wrappers.ObstructView(
        env, obstructed_pixels_ratio=0.2, obstruction_width=10
    ),
    "RenderCollection": lambda env: wrappers.RenderCollection(env, pop_frames=False),
}


def rendering_cartpole():
    return palaestra.make("CartPole-v1", render_mode="rgb_array", max_episode_steps=8)


@pytest.mark.parametrize("name", STACKS)
def test_spec_records_the_wrapper_and_make_rebuilds_the_same_env(name):
    env = STACKS[name](rendering_cartpole())
    assert env.spec.additional_wrappers[-1].name == name
    rebuilt = palaestra.make(env.spec)
    assert str(rebuilt) == str(env)
    assert rebuilt.observation_space == env.observation_space
    actions = sample_actions(env.action_space, 10)
    assert_same(rollout(rebuilt, actions), rollout(env, actions))
    env.reset(seed=3)
    rebuilt.reset(seed=3)
    assert np.array_equal(np.asarray(rebuilt.render()), np.asarray(env.render()))
