"""For randomly drawn spaces, our check_env and Gymnasium's reach the same verdict.

The env under test returns samples of its observation space, seeded from ``np_random`` so it
is reproducible; only the spaces vary, so the checks of spaces and observations are exercised.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.utils.env_checker import check_env
from tests.fixtures.outcomes import run_and_record

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env as gymnasium_check_env  # noqa: E402

BOUNDS = st.sampled_from([(-1.0, 1.0), (0.0, 1.0), (-np.inf, 5.0), (-2.0, np.inf), (-3.0, 3.0)])
SHAPES = st.sampled_from([(), (1,), (3,), (2, 2)])

LEAF_SPACES = st.one_of(
    st.tuples(st.just("box"), BOUNDS, SHAPES, st.sampled_from(["float32", "float64"])),
    st.tuples(st.just("discrete"), st.integers(1, 5), st.integers(-2, 2)),
    st.tuples(st.just("multi_discrete"), st.lists(st.integers(1, 4), min_size=1, max_size=3)),
    st.tuples(st.just("multi_binary"), st.integers(1, 4)),
)
SPACES = st.one_of(
    LEAF_SPACES,
    st.tuples(st.just("tuple"), st.lists(LEAF_SPACES, min_size=1, max_size=3)),
    st.tuples(st.just("dict"), st.lists(LEAF_SPACES, min_size=1, max_size=3)),
)


def build_space(gym, description):
    kind, *args = description
    spaces = gym.spaces
    if kind == "box":
        (low, high), shape, dtype = args
        return spaces.Box(low, high, shape, np.dtype(dtype))
    if kind == "discrete":
        return spaces.Discrete(args[0], start=args[1])
    if kind == "multi_discrete":
        return spaces.MultiDiscrete(args[0])
    if kind == "multi_binary":
        return spaces.MultiBinary(args[0])
    children = [build_space(gym, child) for child in args[0]]
    if kind == "tuple":
        return spaces.Tuple(children)
    return spaces.Dict({f"key_{i}": child for i, child in enumerate(children)})


def sampling_env(gym, observation, action):
    class Sampling(gym.Env):
        def __init__(self):
            self.observation_space = build_space(gym, observation)
            self.action_space = build_space(gym, action)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.observation_space.seed(int(self.np_random.integers(2**31)))
            return self.observation_space.sample(), {}

        def step(self, action):
            return self.observation_space.sample(), 0.0, False, False, {}

    return Sampling()


@settings(max_examples=25, deadline=None)
@given(observation=SPACES, action=SPACES)
def test_both_checkers_agree_on_envs_over_random_spaces(observation, action):
    ours = run_and_record(
        check_env, sampling_env(palaestra, observation, action), skip_render_check=True
    )
    theirs = run_and_record(
        gymnasium_check_env, sampling_env(gymnasium, observation, action), skip_render_check=True
    )
    assert ours.error_name == theirs.error_name, (ours.error, theirs.error)
    assert ours.warnings == theirs.warnings
