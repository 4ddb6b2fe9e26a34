"""Render one picture of each classic-control and Box2D environment.

The pictures go to ``docs/images/<env id>.png`` for the README. With ``--reference`` the same
classic-control frames are also written to ``tests/data/classic_control/``, where the rendering
tests compare fresh frames with them; regenerate them only after an intended change to the
drawing. (The Box2D rendering tests compare frames with Gymnasium's directly.)

Each picture is a fixed scene: a seeded reset followed by a few steps of a simple
deterministic policy, so the car is on a slope, the pendulum shows its torque arrow, and so on.

Usage::

    python scripts/render_gallery.py [--out DIR] [--reference]
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

REPO = Path(__file__).resolve().parent.parent
IMAGES = REPO / "docs" / "images"
REFERENCES = REPO / "tests" / "data" / "classic_control"


def _push_along_velocity(observation: np.ndarray) -> int:
    return 2 if observation[1] >= 0 else 0


def _throttle_along_velocity(observation: np.ndarray) -> np.ndarray:
    return np.array([1.0 if observation[1] >= 0 else -1.0], dtype=np.float32)


def _swing_with_the_elbow(observation: np.ndarray) -> int:
    return 2 if observation[5] >= 0 else 0


def _land(observation: np.ndarray) -> int:
    from types import SimpleNamespace

    from palaestra.envs.box2d.lunar_lander import heuristic

    return heuristic(SimpleNamespace(unwrapped=SimpleNamespace(continuous=False)), observation)


def _walker_gait() -> Callable[[np.ndarray], np.ndarray]:
    from palaestra.envs.box2d.bipedal_walker import BipedalWalkerHeuristics

    return BipedalWalkerHeuristics().step_heuristic


# env id -> (reset seed, number of steps, policy mapping an observation to an action)
SCENES: dict[str, tuple[int, int, Callable[[np.ndarray], Any]]] = {
    "CartPole-v1": (0, 8, lambda observation: 1),
    "MountainCar-v0": (0, 45, _push_along_velocity),
    "MountainCarContinuous-v0": (1, 60, _throttle_along_velocity),
    "Pendulum-v1": (0, 6, lambda observation: np.array([1.5], dtype=np.float32)),
    "Acrobot-v1": (0, 12, _swing_with_the_elbow),
}
BOX2D_SCENES: dict[str, tuple[int, int, Callable[..., Any]]] = {
    "LunarLander-v3": (2, 75, _land),
    "BipedalWalker-v3": (0, 140, _walker_gait),
    "CarRacing-v3": (0, 70, lambda observation: np.array([0.0, 0.5, 0.0], dtype=np.float32)),
}
SCENES.update(BOX2D_SCENES)


def _diagonal_walk(observation: int) -> int:
    row, col = divmod(int(observation), 8)
    return 2 if col <= row else 1


TOY_TEXT_SCENES: dict[str, tuple[int, int, Callable[..., Any]]] = {
    "FrozenLake8x8-v1": (2, 12, _diagonal_walk),
    "Taxi-v4": (1, 3, lambda observation: 1),
    "CliffWalking-v1": (0, 5, lambda observation: 0 if observation >= 36 else 1),
    "Blackjack-v1": (31, 0, lambda observation: 0),
}
SCENES.update(TOY_TEXT_SCENES)
# Scenes whose policy keeps state: their entry is a factory, called afresh for every scene.
POLICY_FACTORIES = {"BipedalWalker-v3"}


def render_scene(env_id: str) -> np.ndarray:
    """Play the fixed scene of ``env_id`` and return its last frame (HxWx3 uint8)."""
    import palaestra

    seed, steps, policy = SCENES[env_id]
    if env_id in POLICY_FACTORIES:
        policy = policy()
    env = palaestra.make(env_id, render_mode="rgb_array")
    observation, _ = env.reset(seed=seed)
    for _ in range(steps):
        observation, *_ = env.step(policy(observation))
    frame = env.render()
    env.close()
    return frame


def save_png(frame: np.ndarray, path: Path) -> None:
    """Write an HxWx3 uint8 ``frame`` to ``path`` as a PNG."""
    import pygame

    path.parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(pygame.surfarray.make_surface(frame.transpose(1, 0, 2)), str(path))


def load_png(path: Path) -> np.ndarray:
    """Read a PNG written by :func:`save_png` back as an HxWx3 uint8 array."""
    import pygame

    return pygame.surfarray.array3d(pygame.image.load(str(path))).transpose(1, 0, 2)


def main(argv: list[str] | None = None) -> None:
    """Write the gallery (and, with ``--reference``, the test references)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMAGES, help="where the pictures go")
    parser.add_argument(
        "--reference", action="store_true", help=f"also write test references to {REFERENCES}"
    )
    args = parser.parse_args(argv)
    for env_id in SCENES:
        frame = render_scene(env_id)
        targets = [args.out / f"{env_id}.png"]
        if args.reference and env_id not in BOX2D_SCENES and env_id not in TOY_TEXT_SCENES:
            targets.append(REFERENCES / f"{env_id}.png")
        for target in targets:
            save_png(frame, target)
            print(target.relative_to(REPO) if target.is_relative_to(REPO) else target)


if __name__ == "__main__":
    main()
