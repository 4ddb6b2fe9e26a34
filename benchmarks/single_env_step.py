"""Per-step time of one classic-control or Box2D environment, palaestra beside Gymnasium.

For every environment it prints one JSON line with the microseconds per ``step`` of
palaestra and of Gymnasium and their ratio (palaestra / Gymnasium, below 1 is faster), both
for the bare environment (``.unwrapped``) and for the full stack that ``make`` builds
(TimeLimit, OrderEnforcing, PassiveEnvChecker). Both libraries step the same seeded episodes
with the same actions (drawn once by ``action_space.sample()``); only steps are timed, resets
happen between timed stretches. Repeats of the two libraries alternate, so a change in machine
load hits both alike, and each number is the median over the repeats.

Run from the repository root::

    python benchmarks/single_env_step.py --steps 20000 --repeats 7
    python benchmarks/single_env_step.py --env-ids box2d --steps 3000 --repeats 5

``--env-ids box2d`` measures the five Box2D ids; CarRacing (which draws a frame every step)
then runs a tenth of ``--steps``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium

import palaestra

ENV_IDS = (
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
    "Acrobot-v1",
)
BOX2D_IDS = (
    "LunarLander-v3",
    "LunarLanderContinuous-v3",
    "BipedalWalker-v3",
    "BipedalWalkerHardcore-v3",
    "CarRacing-v3",
)
# Ids whose step renders a frame: measured over this fraction of --steps.
RENDERING_IDS = {"CarRacing-v3": 0.1}
# The bare environments have no time limit; episodes are cut here instead.
UNWRAPPED_EPISODE_STEPS = 200


def sample_actions(env_id: str, count: int, seed: int = 0) -> list[Any]:
    """Draw ``count`` actions from the environment's action space, as an agent would."""
    env = gymnasium.make(env_id)
    env.action_space.seed(seed)
    actions = [env.action_space.sample() for _ in range(count)]
    env.close()
    return actions


def seconds_per_step(env: Any, actions: Sequence[Any], episode_steps: int | None) -> float:
    """Step ``env`` through ``actions``, resetting when an episode ends; time only the steps."""
    step = env.step
    elapsed = 0.0
    index = 0
    episode = 0
    while index < len(actions):
        env.reset(seed=episode)
        episode += 1
        end = len(actions) if episode_steps is None else min(len(actions), index + episode_steps)
        start = time.perf_counter()
        while index < end:
            _, _, terminated, truncated, _ = step(actions[index])
            index += 1
            if terminated or truncated:
                break
        elapsed += time.perf_counter() - start
    return elapsed / len(actions)


def make_factories(env_id: str, unwrapped: bool) -> dict[str, Callable[[], Any]]:
    """Return a constructor per library for ``env_id``, bare or with the ``make`` stack."""
    if unwrapped:
        return {
            "palaestra": lambda: palaestra.make(env_id).unwrapped,
            "gymnasium": lambda: gymnasium.make(env_id).unwrapped,
        }
    return {
        "palaestra": lambda: palaestra.make(env_id),
        "gymnasium": lambda: gymnasium.make(env_id),
    }


def median_microseconds(
    env_id: str, actions: Sequence[Any], unwrapped: bool, repeats: int
) -> dict[str, float]:
    """Median µs per step of each library, alternating the libraries between repeats."""
    factories = make_factories(env_id, unwrapped)
    envs = {name: factory() for name, factory in factories.items()}
    episode_steps = UNWRAPPED_EPISODE_STEPS if unwrapped else None
    samples: dict[str, list[float]] = {name: [] for name in envs}
    for _ in range(repeats):
        for name, env in envs.items():
            samples[name].append(seconds_per_step(env, actions, episode_steps) * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}


def measure(env_id: str, steps: int, repeats: int) -> dict[str, Any]:
    """One result line for ``env_id``: µs per step and ratios, bare and through ``make``."""
    actions = sample_actions(env_id, steps)
    line: dict[str, Any] = {"env_id": env_id, "steps": steps, "repeats": repeats}
    for stack, unwrapped in (("unwrapped", True), ("make", False)):
        times = median_microseconds(env_id, actions, unwrapped, repeats)
        line[f"{stack}_palaestra_us"] = round(times["palaestra"], 3)
        line[f"{stack}_gymnasium_us"] = round(times["gymnasium"], 3)
        line[f"{stack}_ratio"] = round(times["palaestra"] / times["gymnasium"], 3)
    return line


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and print one JSON line per environment."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20000, help="timed steps per repeat")
    parser.add_argument("--repeats", type=int, default=7, help="repeats per library")
    parser.add_argument(
        "--env-ids", default=",".join(ENV_IDS), help="comma-separated ids, or box2d"
    )
    args = parser.parse_args(argv)
    env_ids = BOX2D_IDS if args.env_ids == "box2d" else args.env_ids.split(",")
    for env_id in env_ids:
        steps = max(1, int(args.steps * RENDERING_IDS.get(env_id, 1.0)))
        print(json.dumps(measure(env_id, steps, args.repeats)), flush=True)


if __name__ == "__main__":
    main()
