"""The vector-env contract over every built-in classic env, vectorization mode and autoreset mode.

Each native, async and pool vector env is held to the contract with the sync vector env of the
same id and mode as its reference; the sync vector env's reference is Gymnasium's. A bug the
contract finds in an area being fixed elsewhere is pinned by marking its case
``pytest.mark.xfail(strict=True, reason=...)``, so that the fix has to remove the mark.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import palaestra
from palaestra.vector import AutoresetMode
from palaestra.vector.contract import (
    VectorEnvContract,
    assert_same,
    check_autoreset,
    check_bad_input,
    check_close,
    check_reference,
    check_vector_env,
    rollout,
)

CLASSIC_IDS = [
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
    "Acrobot-v1",
]
KINDS = ["vector_entry_point", "sync", "async", "pool"]
PROCESSES = ("async", "pool")
NUM_ENVS = 2
MAX_STEPS = 8

MODES = list(AutoresetMode)


def make(env_id: str, kind: str, mode: AutoresetMode):
    """A factory of ``make_vec(env_id, NUM_ENVS, kind)`` in autoreset ``mode``, short episodes."""
    if kind == "vector_entry_point":
        return lambda: palaestra.make_vec(
            env_id, NUM_ENVS, vectorization_mode=kind, max_episode_steps=MAX_STEPS,
            autoreset_mode=mode,
        )  # fmt: skip
    return lambda: palaestra.make_vec(
        env_id, NUM_ENVS, vectorization_mode=kind, max_episode_steps=MAX_STEPS,
        vector_kwargs={"autoreset_mode": mode},
    )  # fmt: skip


def make_gymnasium(env_id: str, mode: AutoresetMode):
    return lambda: gymnasium.make_vec(
        env_id, NUM_ENVS, vectorization_mode="sync", max_episode_steps=MAX_STEPS,
        vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode(mode.value)},
    )  # fmt: skip


def contract_cases() -> list:
    """kind x id x mode; the process-backed kinds beyond CartPole are slow-marked."""
    return [
        pytest.param(
            kind,
            env_id,
            mode,
            id=f"{kind}-{env_id}-{mode.value}",
            marks=[pytest.mark.slow] if kind in PROCESSES and env_id != "CartPole-v1" else [],
        )
        for kind in KINDS
        for env_id in CLASSIC_IDS
        for mode in MODES
    ]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize(("kind", "env_id", "mode"), contract_cases())
def test_builtin_vector_envs_meet_the_contract(kind, env_id, mode):
    if kind == "sync":
        # Gymnasium is the reference of trajectories; our argument errors are our own.
        check_vector_env(make(env_id, kind, mode))
        check_reference(make(env_id, kind, mode), make_gymnasium(env_id, mode))
    else:
        check_vector_env(make(env_id, kind, mode), make(env_id, "sync", mode))


# The other families: sync against Gymnasium, native (where registered) against sync.
TOY_TEXT_IDS = ["FrozenLake-v1", "CliffWalking-v1", "Blackjack-v1"]
OTHER_SYNC_IDS = [*TOY_TEXT_IDS, "LunarLander-v3", "InvertedPendulum-v5"]
OTHER_NATIVE_IDS = [*TOY_TEXT_IDS, "InvertedPendulum-v5", "Hopper-v5"]
TOY_TEXT_TABLE_IDS = ["FrozenLake-v1", "CliffWalking-v1"]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("mode", MODES, ids=lambda mode: mode.value)
@pytest.mark.parametrize("env_id", OTHER_SYNC_IDS)
def test_other_sync_vector_envs_meet_the_contract(env_id, mode):
    check_vector_env(make(env_id, "sync", mode))
    check_reference(make(env_id, "sync", mode), make_gymnasium(env_id, mode))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("mode", MODES, ids=lambda mode: mode.value)
@pytest.mark.parametrize("env_id", OTHER_NATIVE_IDS)
def test_other_native_vector_envs_meet_the_contract(env_id, mode):
    check_vector_env(make(env_id, "vector_entry_point", mode), make(env_id, "sync", mode))


@pytest.mark.parametrize("env_id", TOY_TEXT_TABLE_IDS)
def test_native_toy_text_bad_actions_raise_the_sync_error(env_id):
    mode = AutoresetMode.NEXT_STEP
    check_bad_input(make(env_id, "vector_entry_point", mode), make(env_id, "sync", mode))


class Forgetful(palaestra.vector.SyncVectorEnv):
    """Declares next-step autoreset but resets in the same step, without final_obs."""

    def step(self, actions):
        observations, rewards, terminations, truncations, infos = super().step(actions)
        ended = terminations | truncations
        if ended.any():
            observations, _ = self.reset(options={"reset_mask": ended})
        return observations, rewards, terminations, truncations, infos


def cartpoles(cls=palaestra.vector.SyncVectorEnv, **kwargs):
    return cls([lambda: palaestra.make("CartPole-v1", max_episode_steps=4)] * 2, **kwargs)


def test_the_autoreset_check_catches_a_skipped_reset_step():
    with pytest.raises(AssertionError, match="NEXT_STEP step 4: sub-env 0's reset step returned"):
        check_autoreset(lambda: cartpoles(Forgetful))


def test_the_autoreset_check_demands_an_episode_end():
    with pytest.raises(AssertionError, match="no episode ended in 2 steps"):
        check_autoreset(cartpoles, steps=2)


def test_the_close_check_names_what_a_closed_env_did():
    class Lenient(palaestra.vector.SyncVectorEnv):
        def _refuse_if_closed(self):
            pass

    with pytest.raises(
        AssertionError, match=r"reset after close\(\) should raise Closed.*got nothing"
    ):
        check_close(lambda: cartpoles(Lenient))


def test_check_vector_env_names_the_failing_check():
    with pytest.raises(AssertionError, match=r"^vector-env contract, check 'autoreset': "):
        check_vector_env(lambda: cartpoles(Forgetful))


def test_check_vector_env_rejects_unknown_check_names():
    with pytest.raises(ValueError, match=r"Unknown contract checks \['colour'\]"):
        check_vector_env(cartpoles, skip=["colour"])


class TestTheMixinOnASyncVectorEnv(VectorEnvContract):
    """The pytest mixin as a user would subclass it."""

    def make_env(self):
        return cartpoles(autoreset_mode="SameStep")

    def make_reference(self):
        return palaestra.make_vec(
            "CartPole-v1", 2, vectorization_mode="sync", max_episode_steps=4,
            vector_kwargs={"autoreset_mode": "SameStep"},
        )  # fmt: skip


def test_the_mixin_fails_on_a_broken_env():
    class Broken(VectorEnvContract):
        def make_env(self):
            return cartpoles(Forgetful)

    with pytest.raises(AssertionError):
        Broken().test_autoreset()


def test_the_comparator_tells_float_types_apart():
    with pytest.raises(AssertionError, match=r"value\[1\]: type"):
        assert_same((1.0, np.float64(1)), (1.0, 1.0))


def test_the_comparator_checks_dict_key_order_unless_told_not_to():
    with pytest.raises(AssertionError, match="keys"):
        assert_same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert_same({"a": 1, "b": 2}, {"b": 2, "a": 1}, key_order=False)


def test_rollout_resets_disabled_rows_by_mask():
    envs = cartpoles(autoreset_mode="Disabled")
    trace = rollout(envs, [np.array([0, 0])] * 4, seed=0)
    assert [len(item) for item in trace] == [2, 5, 5, 5, 5, 2]
