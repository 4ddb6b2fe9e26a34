"""Check that two environments behave identically, e.g. a rewrite against the original.

Example:
    >>> import palaestra as gym
    >>> check_environments_match(gym.make("CartPole-v1"), gym.make("CartPole-v1"), num_steps=50)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.core import Env
from palaestra.utils.env_checker import data_equivalence

__all__ = ["check_environments_match"]

INFO_COMPARISONS = ("equivalence", "superset", "skip", "keys-equivalence", "keys-superset")


def _compare_infos(info_a: dict[str, Any], info_b: dict[str, Any], how: str, when: str) -> None:
    """Assert ``info_b`` relates to ``info_a`` as ``how`` demands; ``when`` names the moment."""
    if how == "equivalence":
        assert data_equivalence(info_a, info_b), (
            f"{when} info is not equivalent, info_a = {info_a}, info_b = {info_b}"
        )
    elif how == "superset":
        for key in info_a:
            assert key in info_b and data_equivalence(info_a[key], info_b[key]), (
                f"{when} info is not a superset, key {key} present in info_a with value = "
                f"{info_a[key]}, in info_b with value = {info_b.get(key)}"
            )
    elif how == "keys-equivalence":
        assert info_a.keys() == info_b.keys(), (
            f"{when} info keys are not equivalent, info_a's keys are {info_a.keys()}, "
            f"info_b's keys are {info_b.keys()}"
        )
    elif how == "keys-superset":
        assert info_b.keys() >= info_a.keys(), (
            f"{when} info keys are not a superset, keys not present in info_b are: "
            f"{info_b.keys() - info_a.keys()}"
        )


class _Comparison:
    """The settings of one :func:`check_environments_match` run."""

    def __init__(self, env_a: Env, env_b: Env, skip: set[str], info_comparison: str):
        self.env_a, self.env_b = env_a, env_b
        self.skip = skip
        self.info_comparison = info_comparison

    def resets(self, seed: int, when: str) -> None:
        obs_a, info_a = self.env_a.reset(seed=seed)
        obs_b, info_b = self.env_b.reset(seed=seed)
        assert "obs" in self.skip or data_equivalence(obs_a, obs_b), (
            f"{when} observation is not equivalent, observation_a = {obs_a}, "
            f"observation_b = {obs_b}"
        )
        _compare_infos(info_a, info_b, self.info_comparison, when)
        self.renders(when)

    def steps(self, action: Any, when: str) -> bool:
        """Step both envs with ``action``; return whether either episode ended."""
        obs_a, rew_a, term_a, trunc_a, info_a = self.env_a.step(action)
        obs_b, rew_b, term_b, trunc_b, info_b = self.env_b.step(action)
        # Flags may be Python or NumPy bools; only their truth matters.
        for name, same, value_a, value_b in (
            ("obs", data_equivalence(obs_a, obs_b), obs_a, obs_b),
            ("rew", data_equivalence(rew_a, rew_b), rew_a, rew_b),
            ("terminal", bool(term_a) == bool(term_b), term_a, term_b),
            ("truncated", bool(trunc_a) == bool(trunc_b), trunc_a, trunc_b),
        ):
            assert name in self.skip or same, (
                f"{when} {name} is not equivalent, {name}_a = {value_a}, {name}_b = {value_b}"
            )
        _compare_infos(info_a, info_b, self.info_comparison, when)
        self.renders(when)
        return bool(term_a or trunc_a or term_b or trunc_b)

    def renders(self, when: str) -> None:
        if "render" not in self.skip:
            frame_a, frame_b = self.env_a.render(), self.env_b.render()
            assert np.all(frame_a == frame_b), f"{when} render is not equivalent"


def check_environments_match(
    env_a: Env,
    env_b: Env,
    num_steps: int,
    seed: int = 0,
    skip_obs: bool = False,
    skip_rew: bool = False,
    skip_terminal: bool = False,
    skip_truncated: bool = False,
    skip_render: bool = False,
    info_comparison: str = "equivalence",
) -> None:
    """Assert that two environments give the same results for the same seed and actions.

    Both are reset with ``seed`` and stepped ``num_steps`` times with actions sampled from
    ``env_a.action_space`` (seeded with ``seed``), and reset with ``seed`` again whenever an
    episode ends. Renders are compared unless either env renders to a window or not at all.

    Args:
        env_a: the first environment.
        env_b: the second.
        num_steps: how many steps to compare (``0`` compares only the reset).
        seed: seeds the resets and the action sampling.
        skip_obs: do not compare observations or observation spaces.
        skip_rew: do not compare rewards.
        skip_terminal: do not compare ``terminated``.
        skip_truncated: do not compare ``truncated``.
        skip_render: do not compare renders.
        info_comparison: ``"equivalence"`` (equal infos), ``"superset"`` (``info_b`` holds
            ``info_a``'s items), ``"keys-equivalence"``, ``"keys-superset"`` or ``"skip"``.

    Raises:
        ValueError: if ``info_comparison`` is not one of the above.
        AssertionError: at the first difference, naming the step.

    Example:
        >>> import palaestra as gym
        >>> env_a, env_b = gym.make("CartPole-v1"), gym.make("CartPole-v1", max_episode_steps=5)
        >>> check_environments_match(env_a, env_b, num_steps=10)
        Traceback (most recent call last):
            ...
        AssertionError: stepping (step = 4) truncated is not equivalent, ...
    """
    if info_comparison not in INFO_COMPARISONS:
        raise ValueError(
            f"info_comparison={info_comparison!r} is not one of {list(INFO_COMPARISONS)}"
        )
    renders_frames = all(env.unwrapped.render_mode not in (None, "human") for env in (env_a, env_b))
    flags = {
        "obs": skip_obs,
        "rew": skip_rew,
        "terminal": skip_terminal,
        "truncated": skip_truncated,
        "render": skip_render or not renders_frames,
    }
    skip = {name for name, skipped in flags.items() if skipped}
    assert env_a.action_space == env_b.action_space, (
        f"The action spaces differ: {env_a.action_space} and {env_b.action_space}"
    )
    assert skip_obs or env_a.observation_space == env_b.observation_space, (
        f"The observation spaces differ: {env_a.observation_space} and {env_b.observation_space}"
    )
    comparison = _Comparison(env_a, env_b, skip, info_comparison)
    env_a.action_space.seed(seed)
    comparison.resets(seed, "resetting")
    for step in range(num_steps):
        when = f"stepping (step = {step})"
        if comparison.steps(env_a.action_space.sample(), when):
            comparison.resets(seed, f"resetting (step = {step})")
