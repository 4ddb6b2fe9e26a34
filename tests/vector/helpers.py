"""Test environments and comparison helpers shared by the vector env tests.

The test environments are written once against a "gym module" (``palaestra`` or
``gymnasium``) so the same dynamics run on both sides of a differential test. Trajectories are
compared with the suite's one comparator, :func:`palaestra.vector.contract.assert_same`.
"""

from __future__ import annotations

import contextlib
import functools
import signal
import time
from typing import Any

import numpy as np

import palaestra
from palaestra.vector import contract

# The suite's one comparator; Gymnasium's sync and async vector envs order the SAME_STEP info
# keys differently (final_obs or final_info first), so dict key order is not compared here.
assert_same = functools.partial(contract.assert_same, key_order=False)


class Odd:
    """An info value that is neither a number, an array nor a dict."""

    def __init__(self, tag: int):
        self.tag = tag

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Odd) and other.tag == self.tag

    def __hash__(self) -> int:
        return hash(self.tag)

    def __repr__(self) -> str:
        return f"Odd({self.tag})"


def info_for(step: int, rng: np.random.Generator) -> dict[str, Any]:
    """An info dict mixing scalars, arrays, nested dicts and odd objects; keys come and go."""
    info: dict[str, Any] = {"step": step, "score": float(rng.random())}
    if step % 2 == 0:
        info["even"] = True
        info["f32"] = np.float32(step / 3)
    if step % 3 == 0:
        info["vec"] = np.arange(3, dtype=np.int16) * step
        info["nested"] = {"depth": step, "inner": {"flag": bool(step % 2)}}
    if step % 5 == 0:
        info["label"] = f"step-{step}"
        info["odd"] = Odd(step)
        info["nothing"] = None
        info["np_bool"] = np.bool_(True)
    return info


def make_info_env_class(gym: Any) -> type:
    """A small env of ``gym.Env`` whose infos exercise every batching rule."""

    class InfoEnv(gym.Env):
        metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

        def __init__(self, episode_length: int = 7, render_mode: str | None = None):
            self.observation_space = gym.spaces.Dict(
                {
                    "position": gym.spaces.Box(-10.0, 10.0, shape=(2,), dtype=np.float32),
                    "phase": gym.spaces.Discrete(4),
                }
            )
            self.action_space = gym.spaces.Discrete(3)
            self.episode_length = episode_length
            self.render_mode = render_mode
            self.steps = 0
            self.position = np.zeros(2, dtype=np.float32)

        def _observation(self) -> dict[str, Any]:
            return {"position": self.position.copy(), "phase": self.steps % 4}

        def reset(self, *, seed: int | None = None, options: dict | None = None):
            super().reset(seed=seed)
            self.steps = 0
            self.position = self.np_random.uniform(-1, 1, size=2).astype(np.float32)
            info = {"start": True, "options": dict(options or {})}
            return self._observation(), info

        def step(self, action: Any):
            self.steps += 1
            self.position += np.float32(int(action) - 1) * 0.5
            self.position = np.clip(self.position, -10, 10)
            terminated = bool(self.np_random.random() < 0.08)
            truncated = self.steps >= self.episode_length
            reward = float(self.position.sum())
            return (
                self._observation(),
                reward,
                terminated,
                truncated,
                info_for(self.steps, self.np_random),
            )

        def render(self):
            return np.full((2, 2, 3), self.steps, dtype=np.uint8)

    return InfoEnv


PalaestraInfoEnv = make_info_env_class(palaestra)


class BrokenEnv(palaestra.Env):
    """A CartPole-shaped env that fails (or hangs) on demand.

    Args:
        fail_in: ``"step"``, ``"reset"`` or ``"init"``: where to raise ``error``.
        after: how many successful calls of ``fail_in`` come first.
        error: the exception to raise.
        hang_seconds: instead of raising, sleep this long in ``step``.
    """

    def __init__(
        self,
        fail_in: str = "step",
        after: int = 0,
        error: BaseException | None = None,
        hang_seconds: float = 0.0,
    ):
        self.observation_space = palaestra.spaces.Box(-1, 1, shape=(2,))
        self.action_space = palaestra.spaces.Discrete(2)
        self.fail_in = fail_in
        self.calls_left = after
        self.error = error if error is not None else ValueError("boom")
        self.hang_seconds = hang_seconds
        if fail_in == "init":
            raise self.error

    def _maybe_fail(self, where: str) -> None:
        if where != self.fail_in:
            return
        if self.calls_left > 0:
            self.calls_left -= 1
            return
        if self.hang_seconds:
            time.sleep(self.hang_seconds)
            return
        raise self.error

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._maybe_fail("reset")
        return np.zeros(2, dtype=np.float32), {}

    def step(self, action: Any):
        self._maybe_fail("step")
        return np.zeros(2, dtype=np.float32), 1.0, False, False, {}


class TwoArgumentError(Exception):
    """An exception whose constructor does not take a single message."""

    def __init__(self, code: int, detail: str):
        super().__init__(code, detail)
        self.code = code


def healthy_env() -> BrokenEnv:
    """A BrokenEnv that never fails."""
    return BrokenEnv(fail_in="nowhere")


@contextlib.contextmanager
def ctrl_c_after(seconds: float):
    """Raise KeyboardInterrupt in this thread after ``seconds``, as a Ctrl-C would."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
