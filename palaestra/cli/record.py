"""``palaestra record``: film episodes of an environment into one mp4 file.

Actions come from a random policy (the action space's ``sample``) or from a callable named
``module:callable`` that maps an observation to an action. Frames are encoded as they are
rendered, so long recordings do not pile up in memory.

Example:
    >>> import os, tempfile
    >>> from palaestra.cli import main
    >>> out = os.path.join(tempfile.mkdtemp(), "cart.mp4")
    >>> main(["record", "CartPole-v1", "--episodes", "1", "--out", out, "--seed", "0"])
    ... # doctest: +ELLIPSIS
    episode 1: return=... length=...
    wrote ... frames of 1 episode(s) to .../cart.mp4
    0
"""

from __future__ import annotations

import argparse
import importlib
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from palaestra import error
from palaestra.cli._arguments import positive_int
from palaestra.core import Env
from palaestra.envs.registration import make
from palaestra.utils.save_video import write_mp4

__all__ = ["add_parser", "run", "load_policy", "rendered_episodes"]

Policy = Callable[[Any], Any]


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``record`` subcommand to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "record",
        help="film episodes of an environment into an mp4 file",
        description=(
            "Make ENV_ID with render_mode='rgb_array', play N episodes with a random policy "
            "(or --policy), and write every frame, reset frames included, to one mp4 file."
        ),
    )
    parser.add_argument("env_id", metavar="ENV_ID", help="a registered id, e.g. CartPole-v1")
    parser.add_argument(
        "--episodes", type=positive_int, default=1, metavar="N", help="episodes (default: 1)"
    )
    parser.add_argument("--out", required=True, metavar="FILE.mp4", help="the video to write")
    parser.add_argument(
        "--seed", type=int, default=None, metavar="S", help="seed of env and actions"
    )
    parser.add_argument(
        "--policy",
        default=None,
        metavar="MODULE:CALLABLE",
        help="a callable observation -> action, e.g. mypkg.agents:greedy (default: random)",
    )
    parser.add_argument(
        "--fps",
        type=positive_int,
        default=None,
        help="frames per second of the video (default: the env's render_fps, else 30)",
    )
    return parser


def load_policy(reference: str) -> Policy:
    """Import the callable named by ``module:attribute`` (the attribute may be dotted).

    Args:
        reference: e.g. ``"mypkg.agents:greedy"`` or ``"mypkg.agents:Agent.act"``.

    Raises:
        palaestra.error.Error: if the reference is malformed, cannot be imported, or does
            not name a callable.

    Example:
        >>> load_policy("operator:not_")(0)
        True
    """
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise error.Error(
            f"--policy expects MODULE:CALLABLE (e.g. mypkg.agents:greedy), got {reference!r}"
        )
    try:
        target: Any = importlib.import_module(module_name)
        for name in attribute.split("."):
            target = getattr(target, name)
    except (ImportError, AttributeError) as e:
        raise error.Error(f"--policy {reference!r} could not be loaded: {e}") from e
    if not callable(target):
        raise error.Error(f"--policy {reference!r} is a {type(target).__name__}, not a callable")
    return target


def rendered_episodes(
    env: Env, policy: Policy, episodes: int, seed: int | None, on_episode_end: Callable
) -> Iterator[np.ndarray]:
    """Play ``episodes`` episodes and yield every frame: after each reset and each step.

    Only the first reset is seeded; later episodes continue the seeded random stream.

    Args:
        env: an env made with ``render_mode="rgb_array"``.
        policy: observation -> action.
        episodes: how many episodes to play.
        seed: the seed of the first reset.
        on_episode_end: called with ``(episode number from 1, return, length)``.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array", max_episode_steps=3)
        >>> frames = rendered_episodes(env, lambda obs: 0, 1, 0, lambda *ends: None)
        >>> len(list(frames))
        4
    """
    for episode in range(1, episodes + 1):
        obs, _ = env.reset(seed=seed if episode == 1 else None)
        yield env.render()
        episode_return, length, done = 0.0, 0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(policy(obs))
            yield env.render()
            episode_return += float(reward)
            length += 1
            done = terminated or truncated
        on_episode_end(episode, episode_return, length)


def _make_rgb_env(env_id: str) -> Env:
    with warnings.catch_warnings():
        # An env without rgb_array warns here; the check below gives the clearer error.
        warnings.simplefilter("ignore")
        env = make(env_id, render_mode="rgb_array")
    render_modes = env.metadata.get("render_modes", [])
    if "rgb_array" not in render_modes:
        env.close()
        raise error.Error(
            f"{env_id} cannot be filmed: it does not render 'rgb_array' frames "
            f"(its render modes: {list(render_modes)})"
        )
    return env


def _random_policy(env: Env, seed: int | None) -> Policy:
    env.action_space.seed(seed)

    def sample_action(_observation: Any) -> Any:
        return env.action_space.sample()

    return sample_action


def run(args: argparse.Namespace) -> int:
    """Film ``args.episodes`` episodes of ``args.env_id`` into ``args.out``; return 0."""
    if not args.out.lower().endswith(".mp4"):
        raise error.Error(
            f"--out {args.out!r}: record writes h264 mp4 files; name a file ending in .mp4."
        )
    out_folder = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(out_folder):
        raise error.Error(f"--out {args.out!r}: the folder {out_folder} does not exist")
    policy = load_policy(args.policy) if args.policy else None
    env = _make_rgb_env(args.env_id)
    policy = policy or _random_policy(env, args.seed)
    fps = args.fps or env.metadata.get("render_fps") or 30
    lengths: list[int] = []

    def report(episode: int, episode_return: float, length: int) -> None:
        lengths.append(length)
        print(f"episode {episode}: return={episode_return:g} length={length}")

    try:
        write_mp4(rendered_episodes(env, policy, args.episodes, args.seed, report), args.out, fps)
    finally:
        env.close()
    # Each episode adds its reset frame to one frame per step.
    frame_count = sum(lengths) + len(lengths)
    print(f"wrote {frame_count} frames of {args.episodes} episode(s) to {args.out}")
    return 0
