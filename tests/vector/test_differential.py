"""Palaestra's sync and async vector envs against Gymnasium 1.4's, side by side.

Each scenario runs 500 steps with the same actions on both sides, in every autoreset mode,
resetting now and then with int, list and None seeds and random ``reset_mask``s, and
requires identical observations, rewards, flags and infos (keys, masks, dtypes, values).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import palaestra
from tests.vector.helpers import assert_same, make_info_env_class

gymnasium = pytest.importorskip("gymnasium")

STEPS = 500
NUM_ENVS = 3
MODES = ["NextStep", "SameStep", "Disabled"]

GymnasiumInfoEnv = make_info_env_class(gymnasium)
PalaestraInfoEnv = make_info_env_class(palaestra)


def _env_fns(name: str, gym: Any) -> list[Any]:
    if name == "InfoEnv":
        env_class = PalaestraInfoEnv if gym is palaestra else GymnasiumInfoEnv
        return [lambda i=i: env_class(episode_length=5 + i) for i in range(NUM_ENVS)]
    if name == "Pendulum-v1":
        # Short episodes so every autoreset path runs many times in 500 steps.
        return [lambda: gym.make(name, max_episode_steps=40)] * NUM_ENVS
    return [lambda: gym.make(name)] * NUM_ENVS


def _vector_env(gym: Any, kind: str, name: str, mode: str) -> Any:
    fns = _env_fns(name, gym)
    if kind == "sync":
        return gym.vector.SyncVectorEnv(fns, autoreset_mode=mode)
    return gym.vector.AsyncVectorEnv(fns, context="fork", autoreset_mode=mode)


class _ResetSchedule:
    """Decides, from its own generator, when to reset which sub-envs with which seeds."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def seed(self) -> Any:
        kind = self.rng.integers(3)
        if kind == 0:
            return None
        if kind == 1:
            return int(self.rng.integers(10_000))
        return [
            int(s) if self.rng.random() < 0.7 else None
            for s in self.rng.integers(10_000, size=NUM_ENVS)
        ]

    def mask(self, must_reset: np.ndarray) -> np.ndarray:
        mask = must_reset | (self.rng.random(NUM_ENVS) < 0.3)
        if not mask.any():
            mask[self.rng.integers(NUM_ENVS)] = True
        return mask


def _run_side_by_side(ours: Any, theirs: Any, mode: str, seed: int) -> None:
    schedule = _ResetSchedule(seed)
    actions = ours.action_space
    actions.seed(seed)
    assert_same(ours.reset(seed=seed), theirs.reset(seed=seed), "first reset")
    ended = np.zeros(NUM_ENVS, dtype=bool)
    episodes_ended = masked_resets = 0
    for step in range(STEPS):
        must_reset = ended if mode == "Disabled" else np.zeros(NUM_ENVS, dtype=bool)
        if must_reset.any() or schedule.rng.random() < 0.05:
            seed_arg, mask = schedule.seed(), schedule.mask(must_reset)
            ours_reset = ours.reset(seed=seed_arg, options={"reset_mask": mask.copy()})
            theirs_reset = theirs.reset(seed=seed_arg, options={"reset_mask": mask.copy()})
            assert_same(ours_reset, theirs_reset, f"reset before step {step}")
            masked_resets += 1
        batch = actions.sample()
        ours_step = ours.step(batch)
        theirs_step = theirs.step(batch)
        assert_same(ours_step, theirs_step, f"step {step}")
        ended = ours_step[2] | ours_step[3]
        episodes_ended += int(ended.sum())
    # The scenario is only meaningful if episodes ended and masked resets happened.
    assert episodes_ended >= 10 and masked_resets >= 10


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("name", ["CartPole-v1", "Pendulum-v1", "InfoEnv"])
def test_matches_gymnasium_for_500_steps(name: str, kind: str, mode: str) -> None:
    ours = _vector_env(palaestra, kind, name, mode)
    theirs = _vector_env(gymnasium, kind, name, mode)
    try:
        _run_side_by_side(ours, theirs, mode, seed=len(name) * 7 + MODES.index(mode))
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("mode", MODES)
def test_async_through_pipes_matches_sync(mode: str) -> None:
    ours = palaestra.vector.AsyncVectorEnv(
        _env_fns("InfoEnv", palaestra), shared_memory=False, context="fork", autoreset_mode=mode
    )
    reference = palaestra.vector.SyncVectorEnv(_env_fns("InfoEnv", palaestra), autoreset_mode=mode)
    try:
        _run_side_by_side(ours, reference, mode, seed=11)
    finally:
        ours.close()
        reference.close()
