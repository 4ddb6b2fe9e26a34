"""``import palaestra`` and a first env load only what they use, and nothing optional.

Each scenario runs in a fresh interpreter and lists the modules it added to ``sys.modules``
(beyond a bare interpreter's). A scenario fails on any module of an optional dependency or
another heavy package (the denylist), and on more modules than its budget: a new heavy
import shows up as dozens of modules at once, while the budgets leave room for a few small
new palaestra modules. Counting modules, not timing them, keeps the test deterministic.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Top-level packages of palaestra's extras and other heavy libraries, as imported.
HEAVY = {
    "numba",
    "llvmlite",
    "torch",
    "scipy",
    "pygame",
    "mujoco",
    "Box2D",
    "imageio",
    "ray",
    "jax",
    "jaxlib",
    "pandas",
    "pyarrow",
    "matplotlib",
    "tqdm",
    "tensorboard",
    "tensorboardX",
    "gymnasium",
    "stable_baselines3",
    "ale_py",
    "cv2",
    "PIL",
    "array_api_compat",
    "IPython",
    "rich",
    "yaml",
}

SCENARIOS = {
    "import palaestra": "import palaestra",
    "make CartPole-v1, reset, step": (
        "import palaestra as gym\nenv = gym.make('CartPole-v1')\nenv.reset(seed=0)\nenv.step(0)\n"
    ),
    "make_vec CartPole-v1, reset, 300 steps": (
        "import palaestra as gym\n"
        "envs = gym.make_vec('CartPole-v1', 8)\n"
        "envs.reset(seed=0)\n"
        "for _ in range(300):\n"
        "    envs.step(envs.action_space.sample())\n"
    ),
}

# (palaestra's modules, everyone else's but numpy's) each scenario may load; measured at
# (50, 42), (69, 42) and (78, 42) modules, and ``import gymnasium`` loads 67 of the others.
BUDGETS = {
    "import palaestra": (60, 55),
    "make CartPole-v1, reset, step": (80, 55),
    "make_vec CartPole-v1, reset, 300 steps": (90, 55),
}

LISTING = """
import sys
before = set(sys.modules)
exec(compile(sys.argv[1], "<scenario>", "exec"))
added = sorted(set(sys.modules) - before)
print(repr(added))
"""


def modules_loaded_by(code: str) -> list[str]:
    """The modules that ``code`` adds to a fresh interpreter's ``sys.modules``."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("PALAESTRA_ACCELERATOR", None)
    result = subprocess.run(
        [sys.executable, "-c", LISTING, code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=environment,
        timeout=120,
    )
    return ast.literal_eval(result.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def loaded() -> dict[str, list[str]]:
    return {name: modules_loaded_by(code) for name, code in SCENARIOS.items()}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_no_optional_or_heavy_package_is_loaded(loaded, scenario):
    heavy = sorted({name.split(".")[0] for name in loaded[scenario]} & HEAVY)
    assert heavy == []


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_modules_loaded_stay_within_the_budget(loaded, scenario):
    ours = [name for name in loaded[scenario] if name.split(".")[0] == "palaestra"]
    others = [name for name in loaded[scenario] if name.split(".")[0] not in ("palaestra", "numpy")]
    our_budget, other_budget = BUDGETS[scenario]
    assert len(ours) <= our_budget, sorted(ours)
    assert len(others) <= other_budget, sorted(others)


def test_import_palaestra_loads_no_vector_env_machinery(loaded):
    # Worker processes, shared memory and the native batching load when first used.
    unwanted = ("palaestra.vector.", "palaestra.wrappers.")
    assert [name for name in loaded["import palaestra"] if name.startswith(unwanted)] == []


def test_a_first_make_vec_loads_only_its_own_environments_modules(loaded):
    # classic_control's packages import each env when first named: CartPole's batch loads
    # no MountainCar, Pendulum or Acrobot module.
    others = ("acrobot", "mountain_car", "continuous_mountain_car", "pendulum")
    modules = loaded["make_vec CartPole-v1, reset, 300 steps"]
    assert [name for name in modules if name.rsplit(".", 1)[-1] in others] == []


def test_the_listing_sees_numba_once_the_compiled_path_is_used():
    # The checks above can fail: moving an env to its compiled path loads numba.
    pytest.importorskip("numba")
    code = SCENARIOS["make_vec CartPole-v1, reset, 300 steps"] + "envs.use_compiled_path()\n"
    assert "numba" in modules_loaded_by(code)
