"""Batched Atari speed: ``make_vec("ALE/<Game>-v5", n)`` against ale-py, EnvPool and Gymnasium.

One JSON line per (game, n) with env-steps per second of every contender
(``steps_per_s_<contender>``) and palaestra's ratio to each, all measured in the same run
with repeats interleaved round-robin (so load drifts hit every contender alike; each number
is the median):

- ``palaestra``: ``palaestra.make_vec(id, n, num_threads=T)``, the batched
  :class:`~palaestra.envs.atari.vector.AtariVectorEnv`;
- ``ale-py``: ale-py's own ``AtariVectorEnv(game, n, num_threads=T)``;
- ``envpool``: ``envpool.make_gymnasium("<Game>-v5", num_envs=n, num_threads=T,
  batch_size=n)`` (when EnvPool imports);
- ``gym-sync``: Gymnasium's ``SyncVectorEnv`` of ``gymnasium.make(id, frameskip=1)`` in
  ``AtariPreprocessing`` and ``FrameStackObservation(4)`` (ale-py's single envs).

Like for like: every contender plays 84x84 grayscale frames, 4 frames per step with
max-pooling, a stack of 4, up to 30 no-op starts and sticky actions with probability 0.25
(the v5 ids' setting); the batched three also clip rewards and press FIRE on reset.

EnvPool is a reference only, never a dependency (see ``benchmarks/mujoco_speed.py`` for how
its 1.2.5 wheel imports here). It reads Atari ROMs from ``$ENVPOOL_ASSETS_PATH/atari/roms``;
this script links ale-py's bundled ROMs into a temporary folder outside the repository and
points the variable there, unless it is already set.

Usage (from the repository root; time under the CPU lock)::

    flock /tmp/palaestra-cpu.lock python benchmarks/atari_vector.py [--games Pong Breakout]
        [--num-envs 8 64] [--threads 2] [--env-steps 2000] [--sync-env-steps 400] [--repeats 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STICKY = 0.25
GOALS = {"envpool": 1.0, "ale-py": 1.0, "gym-sync": 1.8}


def link_roms_for_envpool() -> None:
    """Point EnvPool at ale-py's ROMs through links in a temporary folder (outside the repo).

    ``$ENVPOOL_ASSETS_PATH`` replaces the root of all of EnvPool's assets, so the folder also
    links every other asset folder of the ``envpool-assets`` package.

    Raises:
        ImportError: if ``envpool_assets`` is not importable.
    """
    if os.environ.get("ENVPOOL_ASSETS_PATH"):
        return
    from palaestra.envs.atari._ale import roms_dir

    spec = importlib.util.find_spec("envpool_assets")
    if spec is None or spec.origin is None:
        raise ImportError("envpool_assets is not installed")
    assets = Path(spec.origin).parent
    root = Path(tempfile.mkdtemp(prefix="envpool-atari-"))
    for entry in assets.iterdir():
        if entry.is_dir() and entry.name != "atari":
            (root / entry.name).symlink_to(entry)
    folder = root / "atari" / "roms"
    folder.mkdir(parents=True)
    for rom in roms_dir().glob("*.bin"):
        (folder / rom.name).symlink_to(rom)
    os.environ["ENVPOOL_ASSETS_PATH"] = str(root)


def camel(game: str) -> str:
    """Return the ids' name of a ROM (``"ms_pacman"`` -> ``"MsPacman"``)."""
    from palaestra.envs._atari_ids import game_name

    return game_name(game)


def makers(threads: int) -> dict[str, Callable[[str, int], Any]]:
    """Return a builder ``(game, n) -> vector env`` for every contender that imports."""
    import ale_py
    import gymnasium
    from ale_py.vector_env import AtariVectorEnv

    import palaestra

    gymnasium.register_envs(ale_py)

    def gym_single(game: str) -> Any:
        env = gymnasium.make(f"ALE/{camel(game)}-v5", frameskip=1)
        env = gymnasium.wrappers.AtariPreprocessing(env)
        return gymnasium.wrappers.FrameStackObservation(env, 4)

    builders: dict[str, Callable[[str, int], Any]] = {
        "palaestra": lambda game, n: palaestra.make_vec(
            f"ALE/{camel(game)}-v5", n, num_threads=threads
        ),
        "ale-py": lambda game, n: AtariVectorEnv(
            game, n, num_threads=threads, repeat_action_probability=STICKY
        ),
        "gym-sync": lambda game, n: gymnasium.vector.SyncVectorEnv([lambda: gym_single(game)] * n),
    }
    try:
        link_roms_for_envpool()
        import envpool
    except ImportError:
        return builders
    builders["envpool"] = lambda game, n: envpool.make_gymnasium(
        f"{camel(game)}-v5",
        num_envs=n,
        batch_size=n,
        num_threads=threads,
        seed=0,
        repeat_action_probability=STICKY,
        reward_clip=True,
        episodic_life=False,
    )
    return builders


def steps_per_second(env: Any, actions: np.ndarray, seeded_reset: bool = True) -> float:
    """Env-steps per second of ``env`` over ``actions`` (batches), after a reset.

    EnvPool takes its seed when made (and warns at a seeded reset); the others at reset.
    """
    if seeded_reset:
        env.reset(seed=0)
    else:
        env.reset()
    step = env.step
    start = time.perf_counter()
    for action in actions:
        step(action)
    return actions.size / (time.perf_counter() - start)


def measure(
    game: str, n: int, threads: int, env_steps: int, sync_env_steps: int, repeats: int
) -> dict[str, Any]:
    """Return one row: the median env-steps/s of every contender and palaestra's ratios."""
    envs = {name: make(game, n) for name, make in makers(threads).items()}
    actions_n = int(envs["palaestra"].single_action_space.n)
    rng = np.random.default_rng(0)
    actions = {
        name: rng.integers(
            actions_n, size=(max((sync_env_steps if name == "gym-sync" else env_steps) // n, 2), n)
        )
        for name in envs
    }
    rates: dict[str, list[float]] = {name: [] for name in envs}
    for _ in range(repeats):
        for name, env in envs.items():
            rates[name].append(steps_per_second(env, actions[name], name != "envpool"))
    for env in envs.values():
        env.close()
    median = {name: statistics.median(values) for name, values in rates.items()}
    row: dict[str, Any] = {
        "kind": "atari_vector",
        "env_id": f"ALE/{camel(game)}-v5",
        "num_envs": n,
        "num_threads": threads,
        "repeats": repeats,
        **{f"steps_per_s_{name}": round(value, 1) for name, value in median.items()},
    }
    for name in envs:
        if name != "palaestra":
            ratio = median["palaestra"] / median[name]
            row[f"ratio_to_{name}"] = round(ratio, 3)
            row[f"meets_{GOALS[name]}x_{name}"] = bool(ratio >= GOALS[name])
    return row


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Measure every game and size asked for; print and return one row each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["pong", "breakout"])
    parser.add_argument("--num-envs", nargs="+", type=int, default=[8, 64])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--env-steps", type=int, default=2000)
    parser.add_argument("--sync-env-steps", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    for game in args.games:
        for n in args.num_envs:
            row = measure(game, n, args.threads, args.env_steps, args.sync_env_steps, args.repeats)
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


if __name__ == "__main__":
    main()
