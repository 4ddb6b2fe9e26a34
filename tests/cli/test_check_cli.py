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


def test_missing_class_of_an_existing_file_blames_the_class(tmp_path, capsys):
    # Before: "No module named '.../existing_file'" (the file was fine, the class missing).
    path = tmp_path / "existing_file.py"
    path.write_text("VALUE = 1\n")
    assert main(["check", f"{path}:MissingClass"]) == 2
    err = capsys.readouterr().err
    assert f"{str(path)!r} has no attribute 'MissingClass'; expected module:Class." in err
    assert "No module named" not in err
