"""Run by a test in its own session: Ctrl-C (SIGINT to the process group) during a step.

Prints what happened so the test can check that ``close()`` still ended every worker.

The Ctrl-C is pressed by the first sub-env itself once its ``step`` has begun, not by a timer
in the parent: a timer fired after a fixed delay could, on a loaded machine, land before the
step started (during the workers' start-up or the reset) and interrupt the wrong call.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import numpy as np

from palaestra.vector import AsyncVectorEnv
from tests.vector.helpers import BrokenEnv

HANG_SECONDS = 60


class PressesCtrlCInStep(BrokenEnv):
    """Hangs in ``step`` after sending SIGINT to the whole process group, as Ctrl-C would."""

    def step(self, action):
        os.killpg(os.getpgid(0), signal.SIGINT)
        return super().step(action)


def pressing_env() -> BrokenEnv:
    return PressesCtrlCInStep("step", hang_seconds=HANG_SECONDS)


def slow_env() -> BrokenEnv:
    return BrokenEnv("step", hang_seconds=HANG_SECONDS)


def main() -> None:
    envs = AsyncVectorEnv([pressing_env, slow_env], context="fork")
    envs.reset()
    try:
        envs.step(np.array([0, 1]))
    except KeyboardInterrupt:
        print("interrupted")
    started = time.monotonic()
    envs.close()
    print(f"closed in {time.monotonic() - started:.1f} s")
    print(f"children left: {len(multiprocessing.active_children())}")


if __name__ == "__main__":
    main()
