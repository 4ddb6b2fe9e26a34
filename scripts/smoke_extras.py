"""Install each optional extra into a fresh virtual environment and use what it promises.

``python scripts/smoke_extras.py`` tries every extra; ``python scripts/smoke_extras.py rllib
box2d`` only those. For each extra: a new venv (no system site-packages), ``pip install
"<this checkout>[<extra>]"`` (PyTorch first, pinned as ``torch==2.13.0``, for the extras that
need it), then a short script that uses the extra's feature the way the docs show. Prints one
JSON line per extra (``ok``, seconds, the failing output's tail) and exits 1 if any failed.

Slow (minutes per extra, mostly downloads), so it is not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TORCH = "torch==2.13.0"

CARTPOLE_FRAME = """
import palaestra as gym
env = gym.make("CartPole-v1", render_mode="rgb_array")
env.reset(seed=0)
assert env.render().shape == (400, 600, 3)
"""

SMOKE: dict[str, str] = {
    "classic-control": CARTPOLE_FRAME,
    "toy-text": """
import palaestra as gym
env = gym.make("FrozenLake-v1", render_mode="rgb_array")
env.reset(seed=0)
assert env.render().ndim == 3
""",
    "box2d": """
import palaestra as gym
env = gym.make("LunarLander-v3")
env.reset(seed=0)
assert env.step(0)[0].shape == (8,)
""",
    "mujoco": """
import palaestra as gym
envs = gym.make_vec("HalfCheetah-v5", num_envs=2)
envs.reset(seed=0)
assert envs.step(envs.action_space.sample())[0].shape == (2, 17)
""",
    "video": """
import tempfile, pathlib
import numpy as np
from palaestra.utils.save_video import save_video
folder = tempfile.mkdtemp()
save_video([np.zeros((64, 64, 3), np.uint8)] * 8, folder, fps=4, step_starting_index=0,
           episode_index=0)
assert list(pathlib.Path(folder).glob("*.mp4"))
""",
    "torch": """
import torch
import palaestra as gym
from palaestra.wrappers import NumpyToTorch
env = NumpyToTorch(gym.make("CartPole-v1"))
assert isinstance(env.reset(seed=0)[0], torch.Tensor)
""",
    "jax": """
import palaestra as gym
env = gym.make("phys2d/CartPole-v1")
env.reset(seed=0)
""",
    "fast": """
import palaestra as gym
envs = gym.make_vec("CartPole-v1", num_envs=4, accelerator="numba")
envs.reset(seed=0)
envs.step(envs.action_space.sample())
""",
    "train": """
from palaestra.train import PPO
PPO("MlpPolicy", "CartPole-v1", seed=0, n_steps=16, num_envs=2).learn(64, progress_bar=False)
""",
    "gymnasium": """
import gymnasium
import palaestra
from palaestra.compat import to_gymnasium
env = to_gymnasium(palaestra.make("CartPole-v1"))
assert isinstance(env, gymnasium.Env)
env.reset(seed=0)
""",
    "sb3": """
import palaestra
from palaestra.compat import sb3_vec_env
from stable_baselines3 import PPO
venv = sb3_vec_env(palaestra.make_vec("CartPole-v1", 2, autoreset_mode="SameStep"))
PPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, device="cpu").learn(32)
""",
    "ray": """
import ray
import palaestra as gym
ray.init(address="local", num_cpus=1, include_dashboard=False)  # never a cluster met here
envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="ray")
envs.reset(seed=0)
envs.step(envs.action_space.sample())
envs.close()
""",
    "rllib": """
import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.tune.registry import register_env
import palaestra
from palaestra.compat import to_gymnasium
ray.init(address="local", num_cpus=1, include_dashboard=False)  # never a cluster met here
register_env("palaestra-CartPole-v1", lambda config: to_gymnasium(palaestra.make("CartPole-v1")))
config = PPOConfig().environment("palaestra-CartPole-v1").env_runners(num_env_runners=0)
algo = config.training(train_batch_size_per_learner=200, minibatch_size=100).build_algo()
print(algo.train()["env_runners"]["episode_return_mean"])
algo.stop()
""",
    "atari": """
import palaestra as gym
env = gym.make("ALE/Pong-v5")
env.reset(seed=0)
assert env.step(0)[0].shape == (210, 160, 3)
""",
    "docs": """
import subprocess, sys, tempfile
site = tempfile.mkdtemp()
subprocess.run([sys.executable, "scripts/build_docs.py", "--site-dir", site], check=True)
""",
    "all": CARTPOLE_FRAME
    + """
from palaestra.train import PPO
import palaestra as gym
gym.make("LunarLander-v3").reset(seed=0)
gym.make("HalfCheetah-v5").reset(seed=0)
""",
}
NEEDS_TORCH = {"torch", "train", "all", "sb3", "rllib"}


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True)


def smoke(extra: str) -> dict[str, object]:
    """Install ``extra`` into a fresh venv and run its smoke script; return the result line."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"palaestra-{extra}-") as folder:
        env_dir = Path(folder) / "venv"
        venv.create(env_dir, with_pip=True)
        python = str(env_dir / "bin" / "python")
        steps = []
        if extra in NEEDS_TORCH:
            steps.append([python, "-m", "pip", "install", "-q", TORCH])
        steps.append([python, "-m", "pip", "install", "-q", f"{ROOT}[{extra}]"])
        # From a folder of its own, so that the checkout's sources cannot stand in for the
        # installed package (docs builds from the checkout, as its command is documented).
        workdir = ROOT if extra == "docs" else Path(folder)
        steps.append([python, "-c", SMOKE[extra]])
        for step in steps:
            result = _run(step, workdir)
            if result.returncode != 0:
                tail = (result.stdout + result.stderr)[-1500:]
                return {"extra": extra, "ok": False, "seconds": _since(started), "tail": tail}
    return {"extra": extra, "ok": True, "seconds": _since(started)}


def _since(started: float) -> float:
    return round(time.monotonic() - started, 1)


def main(argv: list[str] | None = None) -> int:
    """Smoke-test the extras named in ``argv`` (all when none); exit status 1 if any fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("extras", nargs="*", help=f"among {', '.join(SMOKE)} (default: all)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.extras) - set(SMOKE))
    if unknown:
        parser.error(f"unknown extras {unknown}; expected some of {', '.join(SMOKE)}")
    failed = False
    for extra in args.extras or list(SMOKE):
        line = smoke(extra)
        failed |= not line["ok"]
        print(json.dumps(line), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
