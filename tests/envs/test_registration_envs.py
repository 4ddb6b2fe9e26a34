"""Small environments, wrappers and a registry sandbox shared by the registration tests.

Nothing here is a test; the module is named so the registration tests own it.
"""

from __future__ import annotations

import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import palaestra as gym
from palaestra import spaces
from palaestra.envs import registration
from palaestra.utils import RecordConstructorArgs

HERE = "tests.envs.test_registration_envs"
TEST_NAMESPACE = "RegTest"


class CounterEnv(gym.Env):
    """Counts steps; the episode terminates after ``length`` steps."""

    metadata = {"render_modes": ["rgb_array", "ansi"], "render_fps": 4}

    def __init__(self, render_mode: str | None = None, length: int = 3, start: int = 0):
        self.render_mode = render_mode
        self.length = length
        self.start = start
        self.observation_space = spaces.Discrete(100)
        self.action_space = spaces.Discrete(2)
        self.count = start

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.count = self.start
        return self.count, {}

    def step(self, action):
        self.count += 1
        return self.count, 1.0, self.count - self.start >= self.length, False, {}

    def render(self):
        if self.render_mode == "ansi":
            return str(self.count)
        return np.zeros((2, 2, 3), dtype=np.uint8)


class NoRenderModesEnv(CounterEnv):
    """Declares metadata without ``render_modes``."""

    metadata = {"render_fps": 4}


class StringMetadataEnv(CounterEnv):
    """Declares metadata that is not a dict."""

    metadata = "not a dict"


class NoRenderModeArgEnv(gym.Env):
    """Supports rgb_array rendering but takes no ``render_mode`` argument."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self):
        self.observation_space = spaces.Discrete(2)
        self.action_space = spaces.Discrete(2)


class NotAnEnv:
    """Has the shape of an env but does not inherit from ``palaestra.Env``."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs


def make_counter(**kwargs) -> CounterEnv:
    """A plain function entry point (no ``metadata`` to validate against)."""
    return CounterEnv(**kwargs)


class ScaleReward(gym.RewardWrapper, RecordConstructorArgs):
    """Multiplies rewards by ``scale``; records its arguments so specs can rebuild it."""

    def __init__(self, env: gym.Env, scale: float = 2.0):
        RecordConstructorArgs.__init__(self, scale=scale)
        gym.RewardWrapper.__init__(self, env)
        self.scale = scale

    def reward(self, reward):
        return self.scale * reward


class UnrecordedWrapper(gym.Wrapper):
    """A wrapper that does not record its constructor arguments."""


def make_prewrapped_counter(**kwargs) -> gym.Env:
    """An entry point that applies a wrapper itself."""
    return ScaleReward(CounterEnv(**kwargs), scale=3.0)


SCALE_REWARD_ENTRY = f"{HERE}:ScaleReward"


@pytest.fixture(autouse=True)
def clean_registry() -> Iterator[None]:
    """Restore the global registry and namespace after each test."""
    saved = dict(registration.registry)
    yield
    registration.registry.clear()
    registration.registry.update(saved)
    registration.current_namespace = None


COUNTER_ID = f"{TEST_NAMESPACE}/Counter-v0"


def register_counter() -> str:
    """Register ``RegTest/Counter-v0`` with a step limit of 10 and ``length=5``; return its id."""
    gym.register(COUNTER_ID, entry_point=CounterEnv, max_episode_steps=10, kwargs={"length": 5})
    return COUNTER_ID


def write_plugin_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Write an importable module registering ``Plugin/Imported-v0``; return its name.

    Each call gets a fresh module name, so an earlier import never hides the registration.
    """
    name = f"palaestra_test_plugin_{uuid.uuid4().hex}"
    source = f"""
        import palaestra as gym
        gym.register("Plugin/Imported-v0", entry_point="{HERE}:CounterEnv")
    """
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name
