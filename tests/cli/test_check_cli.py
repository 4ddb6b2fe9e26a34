"""``palaestra check``: OK for a valid env, the problems for a broken one."""

from pathlib import Path

import numpy as np
import pytest

import palaestra as gym
from palaestra import spaces
from palaestra.cli import main

REPO = Path(__file__).parents[2]


class ObservationOutsideSpace(gym.Env):
    """Broken on purpose: reset returns an observation outside its space."""

    def __init__(self):
        self.observation_space = spaces.Box(0.0, 1.0, (2,), np.float32)
        self.action_space = spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.full(2, 7.0, np.float32), {}

    def step(self, action):
        return np.zeros(2, np.float32), 0.0, False, False, {}


class NeedsArguments(gym.Env):
    def __init__(self, size):
        self.size = size


@pytest.fixture
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.syspath_prepend(str(REPO))


def test_example_env_passes_by_module_path(in_repo, capsys):
    assert main(["check", "examples.inventory_env:InventoryEnv"]) == 0
    assert "OK: examples.inventory_env:InventoryEnv follows the palaestra API" in (
        capsys.readouterr().out
    )


def test_example_env_passes_by_file_path(in_repo, capsys):
    assert main(["check", "examples/inventory_env.py:InventoryEnv"]) == 0
    assert "OK: examples/inventory_env.py:InventoryEnv" in capsys.readouterr().out


def test_registered_id_is_checked(capsys):
    assert main(["check", "CartPole-v1", "--skip-render"]) == 0
    assert "OK: CartPole-v1" in capsys.readouterr().out


def test_broken_env_lists_the_problem_and_exits_1(capsys):
    target = f"{__name__}:ObservationOutsideSpace"
    assert main(["check", target]) == 1
    out = capsys.readouterr().out
    assert f"1 problem(s) found in {target}:" in out
    assert "AssertionError" in out


def test_missing_class_is_a_usage_error(capsys):
    assert main(["check", f"{__name__}:NoSuchEnv"]) == 2
    assert "has no attribute 'NoSuchEnv'" in capsys.readouterr().err


def test_unimportable_module_is_a_usage_error(capsys):
    assert main(["check", "no_such_module_xyz:Env"]) == 2
    assert "Cannot import module 'no_such_module_xyz'" in capsys.readouterr().err


def test_class_needing_arguments_is_a_usage_error(capsys):
    assert main(["check", f"{__name__}:NeedsArguments"]) == 2
    assert "without arguments" in capsys.readouterr().err


class WindowOnlyHuman(gym.Env):
    """Renders rgb_array anywhere; its ``human`` mode fails without a display, as MuJoCo's does."""

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 4}

    def __init__(self, render_mode=None):
        self.observation_space = spaces.Box(0.0, 1.0, (2,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.render_mode = render_mode

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(2, np.float32), {}

    def step(self, action):
        return np.zeros(2, np.float32), 0.0, False, False, {}

    def render(self):
        if self.render_mode == "human":
            raise RuntimeError("render_mode='human' opens a window and needs a display")
        return np.zeros((8, 8, 3), np.uint8)


WINDOW_ONLY_ID = "CheckCliWindowOnlyHuman-v0"


@pytest.fixture
def window_only_id():
    gym.register(WINDOW_ONLY_ID, entry_point=f"{__name__}:WindowOnlyHuman")
    yield WINDOW_ONLY_ID
    del gym.registry[WINDOW_ONLY_ID]


@pytest.fixture
def headless(monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    # Set (not deleted) so that the command's setdefault of SDL's dummy driver does not leak.
    monkeypatch.setenv("SDL_VIDEODRIVER", "")


def test_headless_check_skips_the_human_mode_says_so_and_passes(headless, window_only_id, capsys):
    assert main(["check", window_only_id]) == 0
    out = capsys.readouterr().out
    assert (
        "skipped: render_mode='human' needs a window and this machine has none (no display" in out
    )
    assert f"OK: {window_only_id} follows the palaestra API" in out


def test_with_a_display_the_human_mode_is_checked(headless, window_only_id, monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":0")
    assert main(["check", window_only_id]) == 1
    out = capsys.readouterr().out
    assert "skipped" not in out
    assert "- RuntimeError: render_mode='human' opens a window and needs a display" in out


def test_headless_check_of_a_mujoco_env_passes(headless, capsys):
    pytest.importorskip("mujoco")
    assert main(["check", "InvertedPendulum-v5"]) == 0
    assert "skipped: render_mode='human'" in capsys.readouterr().out


def test_missing_class_of_an_existing_file_blames_the_class(tmp_path, capsys):
    # Before: "No module named '.../existing_file'" (the file was fine, the class missing).
    path = tmp_path / "existing_file.py"
    path.write_text("VALUE = 1\n")
    assert main(["check", f"{path}:MissingClass"]) == 2
    err = capsys.readouterr().err
    assert f"{str(path)!r} has no attribute 'MissingClass'; expected module:Class." in err
    assert "No module named" not in err
