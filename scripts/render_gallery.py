"""Render one picture of each classic-control environment.

The pictures go to ``docs/images/<env id>.png`` for the README. With ``--reference`` the same
frames are also written to ``tests/data/classic_control/``, where the rendering tests compare
fresh frames with them; regenerate them only after an intended change to the drawing.

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


# env id -> (reset seed, number of steps, policy mapping an observation to an action)
SCENES: dict[str, tuple[int, int, Callable[[np.ndarray], Any]]] = {
    "CartPole-v1": (0, 8, lambda observation: 1),
    "MountainCar-v0": (0, 45, _push_along_velocity),
    "MountainCarContinuous-v0": (1, 60, _throttle_along_velocity),
    "Pendulum-v1": (0, 6, lambda observation: np.array([1.5], dtype=np.float32)),
    "Acrobot-v1": (0, 12, _swing_with_the_elbow),
}


def render_scene(env_id: str) -> np.ndarray:
    """Play the fixed scene of ``env_id`` and return its last frame (HxWx3 uint8)."""
    import palaestra

    seed, steps, policy = SCENES[env_id]
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
        if args.reference:
            targets.append(REFERENCES / f"{env_id}.png")
        for target in targets:
            save_png(frame, target)
            print(target.relative_to(REPO) if target.is_relative_to(REPO) else target)


if __name__ == "__main__":
    main()
