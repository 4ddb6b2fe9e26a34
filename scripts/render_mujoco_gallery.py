"""Render one picture of each MuJoCo environment (v5) for the README gallery.

Each picture is a fixed scene: a seeded reset followed by a few steps of small sinusoidal
controls, drawn offscreen (``MUJOCO_GL=egl`` unless set) from the environment's own default
camera, and written to ``docs/images/<env id>.png``.

Usage::

    python scripts/render_mujoco_gallery.py [--out DIR] [--size 240]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

os.environ.setdefault("MUJOCO_GL", "egl")

REPO = Path(__file__).resolve().parent.parent
IMAGES = REPO / "docs" / "images"
IDS = (
    "Ant-v5",
    "HalfCheetah-v5",
    "Hopper-v5",
    "Walker2d-v5",
    "Humanoid-v5",
    "HumanoidStandup-v5",
    "Swimmer-v5",
    "Reacher-v5",
    "Pusher-v5",
    "InvertedPendulum-v5",
    "InvertedDoublePendulum-v5",
)
STEPS = 10


def render(env_id: str, size: int) -> np.ndarray:
    """Return the gallery frame of ``env_id``."""
    import palaestra

    env = palaestra.make(env_id, render_mode="rgb_array", width=size, height=size)
    env.reset(seed=0)
    low, high = env.action_space.low, env.action_space.high
    for step in range(STEPS):
        phase = np.sin(0.7 * step + np.arange(low.size))
        env.step((low + (high - low) * (0.5 + 0.25 * phase)).astype(np.float32))
    frame = env.render()
    env.close()
    return frame


def main() -> int:
    """Write every picture."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=IMAGES)
    parser.add_argument("--size", type=int, default=240)
    args = parser.parse_args()
    import imageio.v3 as iio

    args.out.mkdir(parents=True, exist_ok=True)
    for env_id in IDS:
        iio.imwrite(args.out / f"{env_id}.png", render(env_id, args.size))
        print(f"wrote {args.out / f'{env_id}.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
