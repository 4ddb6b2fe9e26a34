"""One training run end to end: what ``palaestra train`` does.

A run trains an agent with the env's preset hyper-parameters, shows a progress bar,
evaluates periodically (stopping once the target return is reached), and writes into its
output folder:

- ``metrics.csv``: one row per update (PPO) or episode (REINFORCE), plus evaluation rows;
- ``checkpoints/step_<N>.pt``: periodic checkpoints;
- ``model.pt``: the final agent (weights, hyper-parameters, normalization statistics);
- ``learning_curve.png``: returns against env steps;
- ``agent-episode-0.mp4``: the trained agent playing one episode;
- ``summary.json``: steps, wall time and the final evaluation.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from palaestra.train.checkpoint import load_policy, save_agent
from palaestra.train.envs import load_normalization_state, normalization_state
from palaestra.train.evaluation import evaluate
from palaestra.train.metrics import MetricsWriter, plot_learning_curve
from palaestra.train.presets import preset

FINAL_EVAL_SEED = 10_000
"""Seed offset of the final evaluation (``palaestra eval`` uses 10000 by default too)."""


@dataclasses.dataclass
class RunSettings:
    """What to train and where to write it.

    Attributes:
        env_id: a registered env id (``module:Env-v0`` imports ``module`` first).
        algo: ``"ppo"`` or ``"reinforce"``.
        steps: env-step budget; ``None`` takes the preset's.
        num_envs: PPO sub-envs; ``None`` takes the preset's.
        seed: seed of everything.
        out: output folder; ``None`` is ``runs/<env>-<algo>-s<seed>``.
        device: torch device (``"cpu"``, ``"cuda"``, ``"auto"``).
        eval_episodes: episodes of each evaluation.
        eval_every: env steps between evaluations (PPO); ``None`` picks about 50 per run.
        target: stop once an evaluation's mean return reaches it; ``None`` takes the env
            spec's ``reward_threshold``.
        checkpoints: number of periodic checkpoints.
        video: record the trained agent.
        progress: show a progress bar.
        overrides: extra config fields for the algorithm.

    Example:
        >>> RunSettings("CartPole-v1", seed=3).output_folder().as_posix()
        'runs/CartPole-v1-ppo-s3'
    """

    env_id: str
    algo: str = "ppo"
    steps: int | None = None
    num_envs: int | None = None
    seed: int = 0
    out: str | None = None
    device: str = "cpu"
    eval_episodes: int = 100
    eval_every: int | None = None
    target: float | None = None
    checkpoints: int = 5
    video: bool = True
    progress: bool = True
    overrides: dict[str, Any] = dataclasses.field(default_factory=dict)

    def output_folder(self) -> Path:
        """Return the run's output folder."""
        if self.out is not None:
            return Path(self.out)
        name = self.env_id.split(":")[-1]
        return Path("runs") / f"{name}-{self.algo}-s{self.seed}"


def build_agent(settings: RunSettings) -> tuple[Any, int, float | None]:
    """Create the agent from the preset and the settings.

    Returns:
        ``(agent, step_budget, target_return)``.

    Example:
        >>> agent, budget, target = build_agent(RunSettings("CartPole-v1"))
        >>> type(agent).__name__, budget, target
        ('PPO', 100000, 475.0)
    """
    chosen = preset(settings.env_id, settings.algo)
    config_fields = dict(chosen.config, seed=settings.seed, device=settings.device)
    config_fields.update(settings.overrides)
    if settings.algo == "ppo":
        from palaestra.train.ppo import PPO, PPOConfig

        if settings.num_envs is not None:
            config_fields["num_envs"] = settings.num_envs
        agent: Any = PPO(settings.env_id, PPOConfig(**config_fields))
    else:
        from palaestra.train.reinforce import Reinforce, ReinforceConfig

        agent = Reinforce(settings.env_id, ReinforceConfig(**config_fields, print_interval=0))
    target = settings.target
    if target is None and chosen.stop_at_threshold:
        spec_target = getattr(getattr(agent.env, "spec", None), "reward_threshold", None)
        target = spec_target if spec_target is not None else chosen.target
    return agent, settings.steps or chosen.steps, target


class _Progress:
    """A tqdm bar when tqdm is installed, else a line every tenth of the budget."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled, self.shown = total, enabled, 0
        self.bar = None
        self._next_line = total / 10
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="step", dynamic_ncols=True)
            except ImportError:
                self.bar = None

    def update(self, steps: int, stats: dict[str, Any]) -> None:
        speed = steps / max(stats.get("time", 0.0), 1e-9)
        mean_return = stats.get("mean_return", math.nan)
        if self.bar is not None:
            self.bar.update(min(steps, self.total) - self.bar.n)
            self.bar.set_postfix(mean_return=f"{mean_return:.1f}", steps_per_s=f"{speed:.0f}")
        elif self.enabled and steps >= self._next_line:
            self._next_line += self.total / 10
            print(
                f"{steps}/{self.total} steps | {speed:.0f} steps/s | mean return {mean_return:.1f}"
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _evaluation_env(agent: Any, num_envs: int) -> Any:
    from palaestra import make_vec

    envs = make_vec(agent.env_id, num_envs=num_envs)
    return load_normalization_state(envs, normalization_state(agent.env), freeze=True)


def _evaluate_agent(agent: Any, episodes: int, seed: int) -> np.ndarray:
    envs = _evaluation_env(agent, min(episodes, 100))
    try:
        return evaluate(agent, envs, episodes=episodes, deterministic=True, seed=seed)
    finally:
        envs.close()


def run_training(settings: RunSettings) -> dict[str, Any]:
    """Train, evaluate and write every artifact of a run (see the module docstring).

    Args:
        settings: the run's settings.

    Returns:
        The summary also written to ``summary.json``.
    """
    out = settings.output_folder()
    out.mkdir(parents=True, exist_ok=True)
    agent, budget, target = build_agent(settings)
    progress = _Progress(budget, settings.progress)
    started = time.perf_counter()
    with MetricsWriter(out / "metrics.csv") as metrics:
        loop = _TrainingLoop(agent, settings, budget, target, metrics, progress, out)
        loop.run()
        train_seconds = time.perf_counter() - started
        progress.close()
        save_agent(agent, out / "model.pt")
        final = _evaluate_agent(agent, settings.eval_episodes, seed=settings.seed + FINAL_EVAL_SEED)
        metrics.write(
            {"steps": agent.num_steps, "eval_mean": final.mean(), "eval_std": final.std()}
        )
    summary = {
        "env_id": agent.env_id,
        "algo": settings.algo,
        "seed": settings.seed,
        "steps": agent.num_steps,
        "train_seconds": round(train_seconds, 3),
        "eval_episodes": settings.eval_episodes,
        "eval_mean": float(final.mean()),
        "eval_std": float(final.std()),
        "target": target,
        "reached_target": loop.reached_target,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    _write_plot(metrics.rows, out / "learning_curve.png", f"{agent.env_id} ({settings.algo})")
    if settings.video:
        record_video(out / "model.pt", out)
    return summary


class _TrainingLoop:
    """Drives ``agent.learn`` with a callback for metrics, progress, evaluation, checkpoints."""

    def __init__(
        self,
        agent: Any,
        settings: RunSettings,
        budget: int,
        target: float | None,
        metrics: MetricsWriter,
        progress: _Progress,
        out: Path,
    ):
        self.agent, self.settings, self.budget, self.target = agent, settings, budget, target
        self.metrics, self.progress, self.out = metrics, progress, out
        self.reached_target = False
        self.eval_every = settings.eval_every or max(budget // 50, 1)
        self.next_eval = self.eval_every
        self.checkpoint_every = max(budget // max(settings.checkpoints, 1), 1)
        self.next_checkpoint = self.checkpoint_every

    def run(self) -> None:
        if self.settings.algo == "ppo":
            self.agent.learn(self.budget, callback=self.on_update)
        else:
            self.agent.learn(max_episodes=10**9, max_steps=self.budget, callback=self.on_update)
            self.reached_target = self._check_target(self._evaluate())

    def on_update(self, stats: dict[str, Any]) -> bool:
        steps = stats["steps"]
        self.progress.update(steps, stats)
        if steps >= self.next_checkpoint:
            self.next_checkpoint += self.checkpoint_every
            save_agent(self.agent, self.out / "checkpoints" / f"step_{steps}.pt")
        if self.settings.algo == "ppo" and steps >= self.next_eval:
            self.next_eval += self.eval_every
            returns = self._evaluate()
            stats = dict(stats, eval_mean=returns.mean(), eval_std=returns.std())
            self.metrics.write(stats)
            self.reached_target = self._check_target(returns)
            return not self.reached_target
        self.metrics.write(stats)
        return True

    def _evaluate(self) -> np.ndarray:
        return _evaluate_agent(self.agent, self.settings.eval_episodes, seed=self.settings.seed)

    def _check_target(self, returns: np.ndarray) -> bool:
        if self.target is None or float(returns.mean()) < self.target:
            return False
        # Confirm on the final evaluation's episodes, so a run that stops early also
        # passes the evaluation it reports (and `palaestra eval`'s default seed).
        confirmation = _evaluate_agent(
            self.agent, self.settings.eval_episodes, seed=self.settings.seed + FINAL_EVAL_SEED
        )
        return float(confirmation.mean()) >= self.target


def _write_plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    from palaestra import error

    try:
        plot_learning_curve(rows, path, title)
    except (ImportError, error.DependencyNotInstalled) as exc:
        warnings.warn(f"Skipping the learning curve: {exc}", stacklevel=2)


def record_video(model_path: str | Path, folder: str | Path, max_steps: int = 1000) -> Path | None:
    """Record one deterministic episode of a saved agent as an mp4 in ``folder``.

    Skipped with a warning (returning ``None``) when video dependencies or ``rgb_array``
    rendering are unavailable.

    Args:
        model_path: a checkpoint written by :func:`~palaestra.train.checkpoint.save_agent`.
        folder: where the video goes.
        max_steps: cut the episode after this many steps.

    Returns:
        The video's path, or ``None`` when skipped.
    """
    from palaestra import error, make

    policy = load_policy(model_path)
    try:
        from palaestra.utils.save_video import save_video

        env = make(policy.env_id, render_mode="rgb_array")
        frames = _play_for_video(policy, env, max_steps)
        fps = env.metadata.get("render_fps", 30)
        env.close()
        save_video(frames, str(folder), name_prefix="agent", fps=fps)
    except (ImportError, error.Error, ValueError) as exc:
        warnings.warn(f"Skipping the video of the trained agent: {exc}", stacklevel=2)
        return None
    return Path(folder) / "agent-episode-0.mp4"


def _play_for_video(policy: Any, env: Any, max_steps: int) -> list[np.ndarray]:
    stats = policy.normalization.get("observation")
    observation, _ = env.reset(seed=0)
    frames = [env.render()]
    for _ in range(max_steps):
        obs = np.asarray(observation, dtype=np.float64)
        if stats is not None:
            obs = (obs - stats["mean"]) / np.sqrt(stats["var"] + 1e-8)
        action = policy.predict(obs[None], deterministic=True)[0]
        observation, _, terminated, truncated, _ = env.step(action)
        frames.append(env.render())
        if terminated or truncated:
            break
    return frames
