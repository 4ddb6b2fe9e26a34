"""``pip install "palaestra[rllib]"`` brings what RLlib needs, and RLlib trains a palaestra env.

Runs in the default suite (the ``test`` extra includes the ``rllib`` extra): a missing RLlib
dependency fails here instead of skipping. The learning-curve check is ``test_rllib.py`` (slow).
"""

from __future__ import annotations

import re
from importlib.metadata import requires
from pathlib import Path

import pytest

import palaestra
from palaestra.compat import to_gymnasium

tomllib = pytest.importorskip("tomllib")  # the standard library from Python 3.11

ROOT = Path(__file__).resolve().parents[2]


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _extra(name: str) -> set[str]:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {_name(r) for r in extras["optional-dependencies"][name]}


def test_the_rllib_extra_names_every_requirement_of_ray_rllib_but_its_gymnasium_pin():
    # Before: pydantic (and others) were missing, so `from ray.rllib.algorithms.ppo import
    # PPOConfig` raised "ray.train.v2 requires the pydantic package" in a fresh venv.
    rllib = {
        _name(r)
        for r in requires("ray") or []
        if re.search(r"""extra\s*==\s*["']rllib["']""", r)
        and not re.search(r"python_version\s*>=\s*\"3\.1[4-9]", r)
    }
    assert rllib - _extra("rllib") == set()
    assert {"gymnasium", "torch"} <= _extra("rllib")  # RLlib's PPO builds torch modules


def test_the_all_extra_includes_box2d_and_mujoco():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (everything,) = extras["optional-dependencies"]["all"]
    included = set(everything.split("[", 1)[1].rstrip("]").split(","))
    assert {"box2d", "mujoco", "train", "classic-control", "toy-text"} <= included


@pytest.fixture
def local_ray():
    import ray

    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_rllib_ppo_builds_and_trains_one_iteration_on_a_palaestra_env(local_ray):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    register_env(
        "palaestra-CartPole-v1-extra", lambda c: to_gymnasium(palaestra.make("CartPole-v1"))
    )
    config = (
        PPOConfig()
        .environment("palaestra-CartPole-v1-extra")
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 200
    assert result["env_runners"]["episode_return_mean"] > 0
