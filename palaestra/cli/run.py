"""``palaestra run``: roll out random actions in an environment and report speed.

Example:
    >>> from palaestra.cli import main
    >>> main(["run", "CartPole-v1", "--episodes", "2", "--seed", "3"])  # doctest: +ELLIPSIS
    episode 1: return=... length=...
    episode 2: return=... length=...
    total: ... steps in ... s (... steps/s)
    0
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from palaestra.cli._arguments import positive_int
from palaestra.core import Env
from palaestra.envs.registration import make


@dataclass(frozen=True)
class EpisodeResult:
    """The undiscounted return and the number of steps of one episode."""

    episode_return: float
    length: int


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``run`` subcommand to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "run",
        help="roll out random actions in an environment",
        description=(
            "Make ENV_ID, play episodes with uniformly random actions, and print each "
            "episode's return and length, then the total steps and steps per second."
        ),
    )
    parser.add_argument("env_id", metavar="ENV_ID", help="a registered id, e.g. CartPole-v1")
    parser.add_argument(
        "--episodes", type=positive_int, default=1, metavar="N", help="episodes (default: 1)"
    )
    parser.add_argument(
        "--seed", type=int, default=None, metavar="S", help="seed of env and actions"
    )
    parser.add_argument(
        "--max-steps",
        type=positive_int,
        default=None,
        metavar="M",
        help="truncate episodes after M steps (default: the env's own limit)",
    )
    return parser


def play_random_episode(env: Env, seed: int | None = None) -> EpisodeResult:
    """Play one episode of ``env`` with actions sampled from its action space.

    Args:
        env: the environment; it must end its episodes (terminate or truncate).
        seed: passed to ``reset``; ``None`` continues the env's random stream.

    Returns:
        The episode's return and length.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", max_episode_steps=5)
        >>> env.action_space.seed(0)
        0
        >>> play_random_episode(env, seed=0).length <= 5
        True
    """
    env.reset(seed=seed)
    episode_return, length, done = 0.0, 0, False
    while not done:
        _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        episode_return += float(reward)
        length += 1
        done = terminated or truncated
    return EpisodeResult(episode_return, length)


def run(args: argparse.Namespace) -> int:
    """Roll out ``args.episodes`` random episodes of ``args.env_id``; return exit status 0."""
    env = make(args.env_id, max_episode_steps=args.max_steps)
    env.action_space.seed(args.seed)
    total_steps = 0
    start = time.perf_counter()
    try:
        for episode in range(1, args.episodes + 1):
            # Only the first reset is seeded; later episodes continue the seeded stream.
            seed = args.seed if episode == 1 else None
            result = play_random_episode(env, seed=seed)
            total_steps += result.length
            print(f"episode {episode}: return={result.episode_return:g} length={result.length}")
    finally:
        env.close()
    elapsed = time.perf_counter() - start
    steps_per_second = total_steps / elapsed if elapsed > 0 else float("inf")
    print(f"total: {total_steps} steps in {elapsed:.3f} s ({steps_per_second:,.0f} steps/s)")
    return 0
