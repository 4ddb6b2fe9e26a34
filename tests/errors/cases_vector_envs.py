"""Misuses of the vector envs (``vector/vector_env.py``, ``sync_vector_env.py``,
``async_vector_env.py``).

Async cases use one or two forked workers over a tiny env, so each costs a process start.
"""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any

import numpy as np

from tests.errors.cases_spaces import custom_space
from tests.errors.harness import CaseTable

TABLE = CaseTable("vector_envs")
case = TABLE.add


def point(gym: ModuleType, high: float = 1.0, size: int = 2, actions: int = 2, **behaviour: Any):
    """A thunk building a tiny env of ``gym``; ``behaviour`` may set ``reset_sleep``,
    ``step_sleep``, ``step_error`` or ``terminate``."""

    class Point(gym.Env):
        def __init__(self):
            self.observation_space = gym.spaces.Box(-1.0, high, (size,), np.float32)
            self.action_space = gym.spaces.Discrete(actions)
            self.value = 0

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            time.sleep(behaviour.get("reset_sleep", 0))
            return np.zeros(size, np.float32), {}

        def step(self, action):
            time.sleep(behaviour.get("step_sleep", 0))
            if "step_error" in behaviour:
                raise behaviour["step_error"]
            terminated = behaviour.get("terminate", False)
            return np.zeros(size, np.float32), 0.0, terminated, False, {}

        def slow(self):
            time.sleep(0.15)

    return Point


def sync(gym, *fns, **kwargs):
    return gym.vector.SyncVectorEnv(list(fns) or [point(gym)] * 2, **kwargs)


def async_(gym, *fns, **kwargs):
    kwargs.setdefault("context", "fork")
    return gym.vector.AsyncVectorEnv(list(fns) or [point(gym)] * 2, **kwargs)


def closing(envs, action):
    """Run ``action(envs)`` and close ``envs`` whatever happens (terminating stuck workers)."""
    try:
        action(envs)
    finally:
        envs.close()


# ---- SyncVectorEnv ---------------------------------------------------------------------------
@case
def sync_observation_mode_tuple_of_non_spaces(gym):
    sync(gym, observation_mode=(3, 4))


@case
def sync_observation_mode_unknown(gym):
    sync(gym, observation_mode="bogus")


@case
def sync_same_mode_with_different_observation_spaces(gym):
    sync(gym, point(gym), point(gym, high=2.0))


def _mode_of_size_three(gym):
    single = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    return single, gym.vector.utils.batch_space(single, 2)


@case
def sync_custom_mode_with_a_different_shape(gym):
    sync(gym, observation_mode=_mode_of_size_three(gym))


@case
def sync_different_action_spaces(gym):
    sync(gym, point(gym), point(gym, actions=3))


def _bad_reset_cases(make, prefix):
    def seeds(gym):
        closing(make(gym), lambda envs: envs.reset(seed=[1]))

    def mask(value):
        def misuse(gym):
            closing(make(gym), lambda envs: envs.reset(options={"reset_mask": value}))

        return misuse

    cases = {
        "reset_seed_list_too_short": seeds,
        "reset_mask_a_list": mask([True, True]),
        "reset_mask_wrong_shape": mask(np.ones(3, bool)),
        "reset_mask_wrong_dtype": mask(np.ones(2, np.int64)),
        "reset_mask_all_false": mask(np.zeros(2, bool)),
    }
    for name, misuse in cases.items():
        misuse.__name__ = f"{prefix}_{name}"
        case(misuse)


_bad_reset_cases(sync, "sync")


@case
def sync_disabled_autoreset_steps_an_ended_env(gym):
    def run(envs):
        envs.reset(seed=0)
        envs.step(np.zeros(2, np.int64))
        envs.step(np.zeros(2, np.int64))

    mode = gym.vector.AutoresetMode.DISABLED
    closing(sync(gym, *[point(gym, terminate=True)] * 2, autoreset_mode=mode), run)


@case
def sync_set_attr_with_wrong_length(gym):
    closing(sync(gym), lambda envs: envs.set_attr("value", [1, 2, 3]))


# ---- AsyncVectorEnv --------------------------------------------------------------------------
@case
def async_max_concurrency_a_string(gym):
    async_(gym, max_concurrency="2")


@case
def async_max_concurrency_zero(gym):
    async_(gym, max_concurrency=0)


@case
def async_worker_with_the_wrong_signature(gym):
    async_(gym, worker=lambda a, b: None)


@case
def async_observation_mode_tuple_of_non_spaces(gym):
    async_(gym, observation_mode=(3, 4))


@case
def async_observation_mode_unknown(gym):
    async_(gym, observation_mode="bogus")


@case
def async_shared_memory_for_a_sequence_space(gym):
    class Seq(point(gym)):
        def __init__(self):
            super().__init__()
            self.observation_space = gym.spaces.Sequence(gym.spaces.Discrete(2))

    async_(gym, Seq, shared_memory=True)


@case
def async_shared_memory_for_a_custom_space(gym):
    class Odd(point(gym)):
        def __init__(self):
            super().__init__()
            self.observation_space = custom_space(gym)

    async_(gym, Odd, shared_memory=True)


_bad_reset_cases(async_, "async")


@case
def async_reset_async_twice(gym):
    def run(envs):
        envs.reset_async()
        envs.reset_async()

    closing(async_(gym), run)


@case
def async_reset_wait_without_reset_async(gym):
    closing(async_(gym), lambda envs: envs.reset_wait())


@case
def async_reset_wait_times_out(gym):
    def run(envs):
        envs.reset_async()
        envs.reset_wait(timeout=0.01)

    closing(async_(gym, point(gym, reset_sleep=0.15)), run)


def _started(envs):
    envs.reset(seed=0)
    return envs


@case
def async_step_async_twice(gym):
    def run(envs):
        _started(envs).step_async(np.zeros(2, np.int64))
        envs.step_async(np.zeros(2, np.int64))

    closing(async_(gym), run)


@case
def async_step_wait_without_step_async(gym):
    closing(async_(gym), lambda envs: _started(envs).step_wait())


@case
def async_step_wait_times_out(gym):
    def run(envs):
        _started(envs).step_async(np.zeros(1, np.int64))
        envs.step_wait(timeout=0.01)

    closing(async_(gym, point(gym, step_sleep=0.15)), run)


@case
def async_call_async_while_stepping(gym):
    def run(envs):
        _started(envs).step_async(np.zeros(2, np.int64))
        envs.call_async("render")

    closing(async_(gym), run)


@case
def async_call_wait_without_call_async(gym):
    closing(async_(gym), lambda envs: envs.call_wait())


@case
def async_call_wait_times_out(gym):
    def run(envs):
        envs.call_async("slow")
        envs.call_wait(timeout=0.01)

    closing(async_(gym, point(gym)), run)


@case
def async_set_attr_with_wrong_length(gym):
    closing(async_(gym), lambda envs: envs.set_attr("value", [1, 2, 3]))


@case
def async_set_attr_while_stepping(gym):
    def run(envs):
        _started(envs).step_async(np.zeros(2, np.int64))
        envs.set_attr("value", 1)

    closing(async_(gym), run)


@case
def async_close_while_stepping(gym):
    envs = _started(async_(gym))
    envs.step_async(np.zeros(2, np.int64))
    envs.close()


@case
def async_same_mode_with_different_observation_spaces(gym):
    async_(gym, point(gym), point(gym, high=2.0))


@case
def async_custom_mode_with_a_different_shape(gym):
    async_(gym, observation_mode=_mode_of_size_three(gym))


@case
def async_different_action_spaces(gym):
    async_(gym, point(gym), point(gym, actions=3))


@case
def async_reset_after_close(gym):
    envs = async_(gym)
    envs.close()
    envs.reset()


@TABLE.add(
    xfail="Gymnasium shuts the worker down and issues three logger.error warnings (one is the "
    "worker's traceback, whose file paths differ); palaestra keeps the worker alive on an "
    "argument error and puts the traceback in the exception"
)
def async_call_of_reset(gym):
    closing(async_(gym), lambda envs: envs.call("reset"))


# ---- VectorEnv and its wrappers --------------------------------------------------------------
@case
def vector_env_step_not_implemented(gym):
    gym.vector.VectorEnv().step(None)


@case
def vector_env_render_not_implemented(gym):
    gym.vector.VectorEnv().render()


@case
def vector_wrapper_of_a_single_env(gym):
    gym.vector.VectorWrapper(point(gym)())


def _bare_vector_env(gym, metadata):
    envs = gym.vector.VectorEnv()
    envs.metadata = metadata
    return envs


@case
def vector_observation_wrapper_without_autoreset_metadata(gym):
    gym.vector.VectorObservationWrapper(_bare_vector_env(gym, {}))


@case
def vector_observation_wrapper_of_same_step_autoreset(gym):
    mode = gym.vector.AutoresetMode.SAME_STEP
    gym.vector.VectorObservationWrapper(_bare_vector_env(gym, {"autoreset_mode": mode}))


def _identity_wrapper_case(wrapper: str, method: str):
    def misuse(gym):
        envs = _bare_vector_env(gym, {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP})
        getattr(getattr(gym.vector, wrapper)(envs), method)(None)

    misuse.__name__ = f"{wrapper}_{method}_not_implemented"
    return misuse


for _wrapper, _method in (
    ("VectorObservationWrapper", "observations"),
    ("VectorActionWrapper", "actions"),
    ("VectorRewardWrapper", "rewards"),
):
    case(_identity_wrapper_case(_wrapper, _method))
