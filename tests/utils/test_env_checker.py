"""check_env passes sound environments (CartPole included); its helpers behave as specified."""

import numpy as np
import pytest

import palaestra
from palaestra.utils.env_checker import (
    check_env,
    check_reset_options,
    check_reset_return_type,
    check_reset_seed_determinism,
    check_step_determinism,
    data_equivalence,
)
from tests.fixtures.broken_envs import make_broken_env
from tests.fixtures.outcomes import run_and_record

INFINITE_BOUND_WARNINGS = [
    "A Box observation space minimum value is -infinity. This is probably too low.",
    "A Box observation space maximum value is infinity. This is probably too high.",
]


@pytest.fixture
def cartpole_id():
    return "CartPole-v1"


def test_check_env_passes_cartpole_with_only_the_infinite_bound_warnings(cartpole_id):
    outcome = run_and_record(check_env, palaestra.make(cartpole_id).unwrapped)
    assert outcome.error is None
    assert outcome.warnings == INFINITE_BOUND_WARNINGS


def test_check_env_on_cartpole_warns_exactly_as_gymnasium(cartpole_id):
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env as gymnasium_check_env

    ours = run_and_record(check_env, palaestra.make(cartpole_id).unwrapped)
    theirs = run_and_record(gymnasium_check_env, gymnasium.make(cartpole_id).unwrapped)
    assert ours.warnings == theirs.warnings


@pytest.mark.parametrize(
    "env_id", ["MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1", "Acrobot-v1"]
)
def test_check_env_passes_every_classic_control_env_as_gymnasium_does(env_id):
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env as gymnasium_check_env

    ours = run_and_record(check_env, palaestra.make(env_id).unwrapped)
    theirs = run_and_record(gymnasium_check_env, gymnasium.make(env_id).unwrapped)
    assert ours.error is None, ours.error
    assert ours.warnings == theirs.warnings


def test_check_env_warns_when_given_a_wrapped_env(cartpole_id):
    env = palaestra.make(cartpole_id)
    outcome = run_and_record(check_env, env, skip_render_check=True)
    assert outcome.error is None
    assert outcome.warnings[0].startswith(
        f"The environment ({env}) is different from the unwrapped version ({env.unwrapped})."
    )


def test_the_warn_argument_is_ignored_with_a_warning():
    outcome = run_and_record(
        check_env, make_broken_env(palaestra, "Sound"), warn=True, skip_render_check=True
    )
    assert outcome.warnings == ["`check_env(warn=...)` parameter is now ignored."]


def test_sound_env_passes_each_reset_check():
    env = make_broken_env(palaestra, "Sound")
    check_reset_return_type(env)
    check_reset_seed_determinism(env)
    check_reset_options(env)
    check_step_determinism(env)


@pytest.mark.parametrize(
    ("data_1", "data_2", "expected"),
    [
        (1, 1, True),
        (1, 1.0, False),
        (np.float32(0.5), np.float32(0.5), True),
        ({"a": 1, "b": (2, [3])}, {"a": 1, "b": (2, [3])}, True),
        ({"a": 1}, {"a": 1, "b": 2}, False),
        ((1, 2), (1, 2, 3), False),
        (np.zeros(3), np.zeros(3) + 1e-7, True),
        (np.zeros(3), np.zeros(3) + 1e-3, False),
        (np.zeros(3), np.zeros(3, dtype=np.float32), False),
        (np.zeros(3), np.zeros((3, 1)), False),
        (np.array([{"x": 1}], dtype=object), np.array([{"x": 1}], dtype=object), True),
        (np.array([{"x": 1}], dtype=object), np.array([{"x": 2}], dtype=object), False),
    ],
)
def test_data_equivalence(data_1, data_2, expected):
    assert data_equivalence(data_1, data_2) is expected


def test_exact_data_equivalence_rejects_tiny_differences():
    assert data_equivalence(np.ones(2), np.ones(2) + 1e-9, exact=True) is False
    assert data_equivalence(np.ones(2), np.ones(2), exact=True) is True


def test_data_equivalence_agrees_with_gymnasium_on_sampled_observations():
    pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import data_equivalence as gymnasium_equivalence

    space = palaestra.spaces.Dict(
        a=palaestra.spaces.Box(-1, 1, (2,)),
        b=palaestra.spaces.Tuple((palaestra.spaces.Discrete(3), palaestra.spaces.MultiBinary(2))),
    )
    space.seed(0)
    samples = [space.sample() for _ in range(6)]
    for first in samples:
        for second in samples:
            assert data_equivalence(first, second) == gymnasium_equivalence(first, second)


def test_a_torch_environment_is_checked_through_numpy_conversion():
    torch = pytest.importorskip("torch")

    class TorchWalk(palaestra.Env):
        metadata = {"render_modes": [], "torch": True}
        observation_space = palaestra.spaces.Box(-10, 10, (2,), np.float32)
        action_space = palaestra.spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.x = torch.tensor(self.np_random.uniform(-1, 1, 2), dtype=torch.float32)
            return self.x.clone(), {}

        def step(self, action):
            assert isinstance(action, torch.Tensor)
            self.x = self.x + (0.1 if int(action) else -0.1)
            return self.x.clone(), torch.tensor(1.0), False, False, {}

    outcome = run_and_record(check_env, TorchWalk(), skip_render_check=True)
    assert outcome.error is None
    assert outcome.warnings == []
