"""AsyncVectorEnv reports sub-env errors and out-of-order closes as Gymnasium 1.4 does.

Each test runs the same script on Gymnasium and on palaestra and compares what was warned:
code (Gymnasium's own test suite among it) records these warnings and counts them.
"""

from __future__ import annotations

import functools
import re
import warnings
from types import ModuleType

import pytest

import palaestra

gymnasium = pytest.importorskip("gymnasium")
BOTH = pytest.mark.parametrize("gym", [gymnasium, palaestra], ids=["gymnasium", "palaestra"])
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@functools.cache
def failing_env_class(gym: ModuleType) -> type:
    """An env whose reset fails for seed 1 and whose step fails for actions >= 1."""

    class Failing(gym.Env):
        observation_space = gym.spaces.Box(0.0, 1.0, (2,))
        action_space = gym.spaces.Discrete(3)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            if seed == 1:
                raise ValueError("Error in reset")
            return self.observation_space.sample(), {}

        def step(self, action):
            if action >= 1:
                raise ValueError(f"Error in step with {action}")
            return self.observation_space.sample(), 0.0, False, False, {}

    return Failing


def recorded(script) -> list[str]:
    """The warnings ``script`` issued, colour codes removed (fork notices left out)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        script()
    texts = [ANSI.sub("", str(w.message)) for w in caught]
    return [text for text in texts if "os.fork()" not in text]


def shape(texts: list[str]) -> list[str]:
    """Each warning reduced to what does not depend on file paths or worker order."""
    kinds = []
    for text in texts:
        if text.startswith("ERROR: Traceback (most recent call last):"):
            kinds.append("traceback: " + text.strip().splitlines()[-1])
        else:
            kinds.append(re.sub(r"Worker-\d", "Worker-?", text))
    return kinds


@BOTH
def test_a_failing_reset_warns_once_per_stopped_worker_then_raises(gym):
    envs = gym.vector.AsyncVectorEnv([failing_env_class(gym)] * 2)
    assert recorded(lambda: envs.reset(seed=[0, 0])) == []

    def reset_fails():
        with pytest.raises(ValueError, match="Error in reset"):
            envs.reset(seed=[1, 0])

    texts = recorded(reset_fails)
    envs.close()
    assert shape(texts) == [
        "ERROR: Received the following error from Worker-? - Shutting it down",
        "traceback: ValueError: Error in reset",
        "ERROR: Raising the last exception back to the main process.",
    ]
    assert "Worker-0" in texts[0]


@BOTH
def test_two_failing_steps_warn_for_each_stopped_worker(gym):
    envs = gym.vector.AsyncVectorEnv([failing_env_class(gym)] * 3)
    envs.reset(seed=[0, 0, 0])

    def step_fails():
        with pytest.raises(ValueError, match=r"Error in step with [12]"):
            envs.step([0, 1, 2])

    texts = recorded(step_fails)
    envs.close()
    stopped = "ERROR: Received the following error from Worker-? - Shutting it down"
    assert [kind.split(" with ")[0] for kind in shape(texts)] == [
        stopped,
        "traceback: ValueError: Error in step",
        stopped,
        "traceback: ValueError: Error in step",
        "ERROR: Raising the last exception back to the main process.",
    ]
    assert sorted(re.findall(r"Worker-(\d)", texts[0] + texts[2])) == ["1", "2"]


@BOTH
@pytest.mark.parametrize("pending", ["reset", "step"])
def test_terminating_close_with_a_pending_call_warns(gym, pending):
    envs = gym.vector.AsyncVectorEnv([failing_env_class(gym)] * 2)
    envs.reset(seed=[0, 0])
    if pending == "step":
        envs.step_async([0, 0])
    else:
        envs.reset_async(seed=[0, 0])
    texts = recorded(lambda: envs.close(terminate=True))
    assert texts == [
        f"WARN: Calling `close` while waiting for a pending call to `{pending}` to complete."
    ]
