"""AtariPreprocessing and FrameStackObservation on our Atari envs equal Gymnasium's on ale-py's.

Both sides make the env without frame skipping (the wrapper skips frames itself) and wrap it
in the same options; 200 steps or fewer per case.
"""

from __future__ import annotations

import gymnasium
import pytest

import palaestra
from tests.envs.atari.conftest import run_side_by_side


def wrapped_pair(env_id, stack, make_kwargs, options):
    ours = palaestra.wrappers.AtariPreprocessing(palaestra.make(env_id, **make_kwargs), **options)
    theirs = gymnasium.wrappers.AtariPreprocessing(gymnasium.make(env_id, **make_kwargs), **options)
    if stack:
        ours = palaestra.wrappers.FrameStackObservation(ours, stack)
        theirs = gymnasium.wrappers.FrameStackObservation(theirs, stack)
    return ours, theirs


def compare_wrapped(env_id, seed, steps, stack=4, make_kwargs=None, **options):
    """Run the wrapped pair side by side; assert their spaces equal too."""
    make_kwargs = {"frameskip": 1} if make_kwargs is None else make_kwargs
    ours, theirs = wrapped_pair(env_id, stack, make_kwargs, options)
    try:
        assert repr(ours.observation_space) == repr(theirs.observation_space)
        return run_side_by_side(ours, theirs, seed, steps)
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("env_id", ["ALE/Pong-v5", "ALE/Breakout-v5"])
def test_the_usual_preprocessing_and_a_stack_of_four_match_gymnasium(env_id):
    compare_wrapped(env_id, seed=0, steps=200)


def test_noframeskip_v4_with_the_usual_preprocessing_matches_gymnasium():
    compare_wrapped("BreakoutNoFrameskip-v4", seed=1, steps=200, make_kwargs={})


def test_ending_episodes_on_a_lost_life_matches_gymnasium():
    episodes = compare_wrapped(
        "ALE/Breakout-v5", seed=2, steps=200, terminal_on_life_loss=True, noop_max=10
    )
    assert episodes >= 3  # random play loses lives quickly: the resets are compared


@pytest.mark.parametrize(
    "options",
    [
        {"grayscale_obs": False},
        {"grayscale_newaxis": True},
        {"scale_obs": True},
        {"screen_size": (64, 48)},
        {"noop_max": 0, "frame_skip": 2},
    ],
    ids=repr,
)
def test_each_preprocessing_option_matches_gymnasium(options):
    compare_wrapped("ALE/Breakout-v5", seed=3, steps=60, stack=2, **options)
