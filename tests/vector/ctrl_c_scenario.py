"""Run by a test in its own session: Ctrl-C (SIGINT to the process group) during a step.

Prints what happened so the test can check that ``close()`` still ended every worker.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

import numpy as np

from palaestra.vector import AsyncVectorEnv
from tests.vector.helpers import BrokenEnv


def slow_env() -> BrokenEnv:
    return BrokenEnv("step", hang_seconds=30)


def main() -> None:
    envs = AsyncVectorEnv([slow_env, slow_env], context="fork")
    envs.reset()
    press_ctrl_c = threading.Timer(0.5, lambda: os.killpg(os.getpgid(0), signal.SIGINT))
    press_ctrl_c.start()
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
