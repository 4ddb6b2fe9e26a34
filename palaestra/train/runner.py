"""One training run end to end: what ``palaestra train`` does.

A run trains an agent with the env's preset hyper-parameters (plus overrides), shows a
progress bar, evaluates periodically (deterministic actions; stopping once the target
return is reached), and writes into its output folder:

- ``settings.json``: what was asked (``palaestra train --resume DIR`` reads it back);
- ``metrics.csv``: one row per update (PPO), per log interval (DQN, SAC) or per episode
  (REINFORCE), plus evaluation rows, under CleanRL-style names (``global_step``,
  ``charts/episodic_return``, ``charts/SPS``, ``losses/value_loss``, ``eval/mean_return``);
- ``tensorboard/``: the same metrics as TensorBoard event files;
- ``checkpoints/step_<N>.pt``: periodic checkpoints, and always one at the end;
- ``model.pt``: the final agent (weights, optimizer, hyper-parameters, normalization);
- ``learning_curve.png``: returns against env steps;
- ``agent-episode-0.mp4``: the trained agent playing one episode;
- ``summary.json``: steps, wall time and the final evaluation (and how the run ended).

Runs survive: every file is written atomically, the folder is locked while a run uses it
(an ``flock`` on ``.lock``, which names the owner's host and process id), an existing run
is never overwritten unless asked (``overwrite``), and Ctrl-C ends with a final
checkpoint, ``model.pt`` and ``summary.json``.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import math
import os
import shutil
import socket
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from palaestra import error
from palaestra.train.checkpoint import (
    CheckpointError,
    _load_problem,
    check_weights_fit,
    load_policy,
    load_state,
    newest_checkpoint,
    resolve_env_id,
    save_agent,
)
from palaestra.train.core import registry
from palaestra.train.envs import load_normalization_state, normalization_state
from palaestra.train.evaluation import evaluate
from palaestra.train.metrics import MetricsWriter, plot_learning_curve, read_metrics
from palaestra.train.presets import canonical_id, preset

FINAL_EVAL_SEED = 10_000
"""Seed offset of the final evaluation (``palaestra eval`` uses 10000 by default too)."""

ARTIFACTS = (
    "settings.json",
    "metrics.csv",
    "model.pt",
    "summary.json",
    "learning_curve.png",
    "agent-episode-0.mp4",
    "checkpoints",
    "tensorboard",
)
"""What a run writes into its folder (and what ``overwrite`` replaces)."""


class RunInterrupted(error.Error):
    """Training was interrupted (Ctrl-C); the final checkpoint and summary were written."""


@dataclasses.dataclass
class RunSettings:
    """What to train and where to write it.

    Attributes:
        env_id: a registered env id (``module:Env-v0`` imports ``module`` first); an
            unversioned id trains the version ``make`` builds, with that version's preset.
        algo: ``"ppo"``, ``"dqn"``, ``"sac"`` or ``"reinforce"``.
        steps: env-step budget; ``None`` takes the preset's.
        num_envs: sub-envs; ``None`` takes the preset's.
        seed: seed of everything.
        out: output folder; ``None`` is ``runs/<env>-<algo>-s<seed>``.
        device: torch device (``"cpu"``, ``"cuda"``, ``"auto"``).
        eval_episodes: episodes of each evaluation.
        eval_every: env steps between evaluations; ``None`` takes the preset's (or about
            50 per run).
        target: stop once an evaluation's mean return reaches it; ``None`` takes the env
            spec's ``reward_threshold``.
        checkpoints: number of periodic checkpoints (a final one is always written);
            ignored when ``checkpoint_every`` is given.
        checkpoint_every: env steps between checkpoints (written at the first update
            past each multiple); ``None`` spreads ``checkpoints`` over the budget.
        checkpoint_minutes: also checkpoint whenever this many minutes of training passed
            since the last one, so a kill loses at most that much of a long run; ``None``
            checkpoints by steps only.
        video: record the trained agent.
        progress: show a progress bar.
        tensorboard: write TensorBoard event files.
        overwrite: replace the artifacts of an earlier run in ``out``.
        overrides: extra config fields for the algorithm (``--set``, a config file).

    Example:
        >>> RunSettings("CartPole-v1", seed=3).output_folder().as_posix()
        'runs/CartPole-v1-ppo-s3'
        >>> RunSettings("CartPole").output_folder().as_posix()
        'runs/CartPole-v1-ppo-s0'
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
    checkpoint_every: int | None = None
    checkpoint_minutes: float | None = 10.0
    video: bool = True
    progress: bool = True
    tensorboard: bool = True
    overwrite: bool = False
    overrides: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.algo not in registry.names():
            raise ValueError(f"algo must be one of {registry.names()}, got {self.algo!r}.")
        if self.checkpoint_every is not None and not self.checkpoint_every >= 1:
            raise ValueError(
                f"checkpoint_every must be a positive number of env steps, got "
                f"{self.checkpoint_every!r}."
            )
        if self.checkpoint_minutes is not None and not self.checkpoint_minutes > 0:
            raise ValueError(
                f"checkpoint_minutes must be positive, got {self.checkpoint_minutes!r}."
            )

    def output_folder(self) -> Path:
        """Return the run's output folder."""
        if self.out is not None:
            return Path(self.out)
        return Path("runs") / f"{canonical_id(self.env_id)}-{self.algo}-s{self.seed}"

    def to_json(self) -> dict[str, Any]:
        """Return the settings as JSON data."""
        data = dataclasses.asdict(self)
        data["overrides"] = {key: _jsonable(value) for key, value in self.overrides.items()}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunSettings:
        """Build settings from :meth:`to_json`'s data (unknown keys are ignored)."""
        known = {field.name for field in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in known})


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def config_fields(algo: str) -> list[str]:
    """Names of the hyper-parameters ``--set`` accepts for ``algo``.

    Example:
        >>> "n_steps" in config_fields("ppo"), "tau" in config_fields("sac")
        (True, True)
    """
    return registry.get(algo).config_fields()


def build_agent(settings: RunSettings) -> tuple[Any, int, float | None]:
    """Create the agent from the preset and the settings.

    Returns:
        ``(agent, step_budget, target_return)``.

    Raises:
        ValueError: for an unknown hyper-parameter in ``overrides``.

    Example:
        >>> agent, budget, target = build_agent(RunSettings("CartPole-v1"))
        >>> type(agent).__name__, budget, target
        ('PPO', 100000, 475.0)
    """
    chosen = preset(settings.env_id, settings.algo)
    entry = registry.get(settings.algo)
    algorithm, config_class = entry.agent_class(), entry.config_class()
    fields = dict(seed=settings.seed, device=settings.device, **settings.overrides)
    if settings.num_envs is not None and "num_envs" in config_fields(settings.algo):
        fields["num_envs"] = settings.num_envs
    unknown = sorted(set(fields) - set(config_fields(settings.algo)))
    if unknown:
        raise ValueError(
            f"Unknown {settings.algo} hyper-parameters {unknown}; valid ones: "
            f"{config_fields(settings.algo)}."
        )
    if settings.algo == "reinforce":
        config = config_class(**dict(chosen.config, print_interval=0, **fields))
        agent: Any = algorithm(settings.env_id, config)
    else:
        try:
            agent = algorithm(entry.default_policy, settings.env_id, **fields)
        except TypeError as exc:
            raise ValueError(str(exc)) from exc
    target = settings.target
    if target is None and chosen.stop_at_threshold:
        spec_target = getattr(getattr(agent.env, "spec", None), "reward_threshold", None)
        target = spec_target if spec_target is not None else chosen.target
    return agent, settings.steps or chosen.steps, target


class _Progress:
    """A tqdm bar when tqdm is installed, else a line every tenth of the budget."""

    def __init__(self, total: int, enabled: bool, initial: int = 0):
        self.total, self.enabled, self.shown = total, enabled, 0
        self.bar = None
        self._next_line = total / 10
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, initial=initial, unit="step", dynamic_ncols=True)
            except ImportError:
                self.bar = None

    def update(self, steps: int, stats: dict[str, Any]) -> None:
        speed = stats.get("steps_per_second", math.nan)
        mean_return = stats.get("mean_return", math.nan)
        if self.bar is not None:
            self.bar.update(max(min(steps, self.total) - self.bar.n, 0))
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
    """Make evaluation envs with the agent's normalization and its step timeout, if any."""
    from palaestra import make_vec

    envs: Any = make_vec(agent.env_id, num_envs=num_envs)
    timeout = getattr(agent.config, "step_timeout", None)
    if timeout is not None:
        from palaestra.train.diagnostics import DiagnosticsWrapper

        envs = DiagnosticsWrapper(envs, step_timeout=timeout)
    return load_normalization_state(envs, normalization_state(agent.env), freeze=True)


def _evaluate_agent(agent: Any, episodes: int, seed: int) -> np.ndarray:
    envs = _evaluation_env(agent, min(episodes, 100))
    try:
        return evaluate(agent, envs, episodes=episodes, deterministic=True, seed=seed)
    finally:
        envs.close()


class RunLock:
    r"""An exclusive lock on a run folder: an ``flock`` on ``.lock``, which names its holder.

    The operating system holds the lock for the owning process and drops it when that
    process ends in any way (even ``SIGKILL``), so a lock left by a dead run never blocks
    and a recycled process id is never mistaken for the owner. The file says who holds
    it (``host pid``). On a folder shared between hosts the lock protects runs where the
    filesystem carries ``flock`` across hosts (NFS with locking enabled does).

    Args:
        folder: the run folder.

    Raises:
        palaestra.error.Error: (on :meth:`acquire`) if another process holds it, naming its
            host and process id.

    Example:
        >>> import socket, tempfile
        >>> with RunLock(tempfile.mkdtemp()) as lock:
        ...     lock.path.read_text() == f"{socket.gethostname()} {os.getpid()}\n"
        True
    """

    def __init__(self, folder: str | os.PathLike):
        self.path = Path(folder) / ".lock"
        self._handle: int | None = None

    def acquire(self) -> RunLock:
        """Take the lock (or raise naming the host and process that hold it)."""
        for _ in range(3):
            handle = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
            if not _try_lock(handle):
                os.close(handle)
                raise error.Error(
                    f"run folder {self.path.parent} is in use by {_lock_owner(self.path)} "
                    f"({self.path}); wait for that run or choose another --out."
                )
            if not _is_current_file(handle, self.path):
                os.close(handle)  # its owner released and removed it meanwhile: retry
                continue
            os.ftruncate(handle, 0)
            os.write(handle, f"{socket.gethostname()} {os.getpid()}\n".encode())
            self._handle = handle
            return self
        raise error.Error(f"could not lock run folder {self.path.parent}; try again.")

    def release(self) -> None:
        """Give the lock up, if this object holds it (the file is removed first)."""
        if self._handle is None:
            return
        self.path.unlink(missing_ok=True)
        os.close(self._handle)
        self._handle = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _try_lock(handle: int) -> bool:
    """Take an exclusive, non-blocking OS lock on the open file ``handle``."""
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        try:
            msvcrt.locking(handle, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]  # Windows
        except OSError:
            return False
        return True
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return False
        raise
    return True


def _is_current_file(handle: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(handle), os.stat(path))
    except FileNotFoundError:
        return False


def _lock_owner(path: Path) -> str:
    try:
        host, pid = path.read_text().split()
    except (OSError, ValueError):
        return "another process"
    return f"process {pid} on host {host}"


def prepare_folder(out: Path, overwrite: bool, resume: bool = False) -> None:
    """Create the run folder, refusing to silently reuse one that holds a run.

    Raises:
        palaestra.error.Error: if ``out`` is a file, or holds a run and neither
            ``overwrite`` nor ``resume`` is set.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "model.pt").write_bytes(b"")
        >>> prepare_folder(folder, overwrite=False)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        palaestra.error.Error: run folder ... already holds a run (model.pt); pass --overwrite ...
    """
    if out.exists() and not out.is_dir():
        raise error.Error(
            f"--out {str(out)!r} is a file, not a folder; choose a folder path for the run."
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise error.Error(
            f"--out {str(out)!r} cannot be created: a parent path is a file."
        ) from None
    if resume:
        return
    present = [name for name in ARTIFACTS if (out / name).exists()]
    if present and not overwrite:
        raise error.Error(
            f"run folder {out} already holds a run ({', '.join(present)}); pass --overwrite "
            "to replace it, --resume to continue it, or choose another --out."
        )


def _clear_artifacts(out: Path) -> None:
    for name in ARTIFACTS:
        path = out / name
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def _atomic_write_text(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def run_training(settings: RunSettings, resume: bool = False) -> dict[str, Any]:
    """Train, evaluate and write every artifact of a run (see the module docstring).

    Args:
        settings: the run's settings.
        resume: continue the run in ``settings.output_folder()`` from its newest
            checkpoint (or ``model.pt``) until its step budget.

    Returns:
        The summary also written to ``summary.json``.

    Raises:
        palaestra.error.Error: for an unusable folder (a file, locked, holding a run).
        RunInterrupted: after Ctrl-C, once the final checkpoint and summary are written.
        palaestra.train.diagnostics.NonFiniteError: at a non-finite reward, loss or
            gradient (unless ``check_finite=False``).
    """
    out = settings.output_folder()
    prepare_folder(out, settings.overwrite, resume)
    with RunLock(out):
        if settings.overwrite and not resume:
            _clear_artifacts(out)
        return _run_locked(settings, out, resume)


def _run_locked(settings: RunSettings, out: Path, resume: bool) -> dict[str, Any]:
    _remove_stale_temporaries(out)
    newest = _newest_state(settings, out) if resume else None
    agent, budget, target = build_agent(settings)
    if resume:
        _resume_agent(agent, newest, out)
    else:
        _atomic_write_text(out / "settings.json", json.dumps(settings.to_json(), indent=2))
    progress = _Progress(budget, settings.progress, initial=min(agent.num_steps, budget))
    started = time.perf_counter()
    tensorboard = out / "tensorboard" if settings.tensorboard else None
    interrupted = False
    after_step = agent.num_steps if resume else None
    with MetricsWriter(out / "metrics.csv", tensorboard, resume, after_step) as metrics:
        loop = _TrainingLoop(agent, settings, budget, target, metrics, progress, out)
        try:
            loop.run()
        except KeyboardInterrupt:
            interrupted = True
        train_seconds = time.perf_counter() - started
        progress.close()
        loop.save_checkpoint()
        save_agent(agent, out / "model.pt")
        if interrupted:
            summary = _summary(agent, settings, train_seconds, target, loop, None)
            summary["interrupted"] = True
            _atomic_write_text(out / "summary.json", json.dumps(summary, indent=2))
            raise RunInterrupted(
                f"interrupted at step {agent.num_steps}: checkpoint, model.pt and summary.json "
                f"are in {out}; continue with `palaestra train --resume {out}`."
            )
        try:
            seed = settings.seed + FINAL_EVAL_SEED
            final = _evaluate_agent(agent, settings.eval_episodes, seed=seed)
        except KeyboardInterrupt:
            raise _interrupted_after_training(agent, out, "the final evaluation") from None
        metrics.write(
            {"steps": agent.num_steps, "eval_mean": final.mean(), "eval_std": final.std()}
        )
    summary = _summary(agent, settings, train_seconds, target, loop, final)
    _atomic_write_text(out / "summary.json", json.dumps(summary, indent=2))
    try:
        rows = read_metrics(out / "metrics.csv")
        _write_plot(rows, out / "learning_curve.png", f"{agent.env_id} ({settings.algo})")
        if settings.video:
            record_video(out / "model.pt", out)
    except KeyboardInterrupt:
        raise _interrupted_after_training(agent, out, "the learning curve or video") from None
    return summary


def _interrupted_after_training(agent: Any, out: Path, skipped: str) -> RunInterrupted:
    return RunInterrupted(
        f"interrupted after training ({agent.num_steps} steps): model.pt and the final "
        f"checkpoint are in {out}; {skipped} was skipped (evaluate with `palaestra eval "
        f"{out}`)."
    )


def _remove_stale_temporaries(out: Path) -> None:
    """Delete the temporary files of saves killed midway (their targets are intact).

    Only called with the run's lock held, so no save of a live run is in progress.
    """
    for pattern in (".*.tmp", "checkpoints/.step_*.pt.*.tmp"):
        for temporary in out.glob(pattern):
            temporary.unlink(missing_ok=True)


def _summary(
    agent: Any,
    settings: RunSettings,
    seconds: float,
    target: float | None,
    loop: _TrainingLoop,
    final: np.ndarray | None,
) -> dict[str, Any]:
    summary = {
        "env_id": agent.env_id,
        "algo": settings.algo,
        "seed": settings.seed,
        "steps": agent.num_steps,
        "train_seconds": round(seconds, 3),
        "eval_episodes": settings.eval_episodes,
        "eval_mode": "deterministic",
        "eval_mean": None if final is None else float(final.mean()),
        "eval_std": None if final is None else float(final.std()),
        "target": target,
        "reached_target": loop.reached_target,
        "evaluations": loop.evaluations,
        "checkpoints": loop.checkpoints_written,
        "interrupted": False,
        "backend": getattr(agent, "backend", "autograd"),
        "backend_reason": getattr(agent, "backend_reason", "the algorithm has one backend"),
    }
    return summary


def _newest_state(settings: RunSettings, out: Path) -> tuple[dict[str, Any], Path] | None:
    """Read the newest state of the run in ``out``, checked before any agent is built.

    The saved weights are checked (on the meta device) against the network that
    ``settings.json`` describes, so an edited file naming other sizes is refused before
    they are allocated. ``None`` (with a warning) when the run has no checkpoint yet.
    """
    if not registry.get(settings.algo).resumable:
        resumable = [name for name in registry.names() if registry.get(name).resumable]
        raise error.Error(f"--resume supports {', '.join(resumable)} runs, not {settings.algo}.")
    candidates = [path for path in (newest_checkpoint(out), out / "model.pt") if path]
    if not any(path.is_file() for path in candidates):
        warnings.warn(
            f"{out} holds no checkpoint yet (the run was stopped before its first one): "
            "training starts again from step 0 with the run's settings.",
            stacklevel=4,
        )
        return None
    states = []
    for path in candidates:
        if path.is_file():
            try:
                states.append((load_state(path), path))
            except CheckpointError as exc:
                warnings.warn(f"Skipping {path} when resuming: {exc}", stacklevel=4)
    if not states:
        raise error.Error(f"nothing to resume in {out}: no readable model.pt or checkpoint.")
    state, path = max(states, key=lambda item: int(item[0].get("steps", 0)))
    if state["algo"] != settings.algo:
        raise error.Error(f"{out} holds a {state['algo']} run, not {settings.algo}.")
    described = dict(state, config={**state["config"], **settings.to_json()["overrides"]})
    try:
        check_weights_fit(described, settings.env_id, path)
    except CheckpointError as exc:
        raise _does_not_fit(path, out, exc.problem) from None
    return state, path


def _resume_agent(agent: Any, newest: tuple[dict[str, Any], Path] | None, out: Path) -> None:
    """Load the state :func:`_newest_state` found into ``agent`` (nothing when ``None``)."""
    if newest is None:
        return
    state, path = newest
    try:
        agent.load_state(state)
    except (RuntimeError, KeyError, TypeError, ValueError) as exc:
        raise _does_not_fit(path, out, _load_problem(exc)) from None


def _does_not_fit(path: Path, out: Path, problem: str) -> CheckpointError:
    return CheckpointError(
        f"cannot resume from {path}: it does not fit the agent {out / 'settings.json'} "
        f"describes (was it edited?): {problem.removesuffix('; nothing was allocated')}; "
        "nothing was built."
    )


def resume_settings(folder: str | os.PathLike, allow_import: bool = False) -> RunSettings:
    """Return the settings of the run in ``folder`` (from its ``settings.json``).

    ``settings.json`` is data, like a checkpoint: an env id that needs an import
    (``module:Env-v0``) is refused unless ``allow_import`` is true, and nothing is imported
    while reading it.

    Args:
        folder: the run folder.
        allow_import: allow the saved ``module:Env-v0`` id to import its module (trusted
            folders only; ``palaestra train --resume DIR --allow-import``).

    Raises:
        palaestra.error.Error: if ``folder`` holds no readable ``settings.json``, or its env
            id would import a module without ``allow_import``.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "settings.json").write_text('{"env_id": "evil:CartPole-v1"}')
        >>> resume_settings(folder)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        palaestra.train.checkpoint.CheckpointError: ...settings.json names env id 'evil:Cart...
    """
    path = Path(folder) / "settings.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise error.Error(
            f"cannot resume {folder}: no readable settings.json ({exc}); was it written by "
            "`palaestra train`?"
        ) from None
    if not isinstance(data, dict) or "env_id" not in data:
        raise error.Error(f"cannot resume {folder}: settings.json is not a run's settings.")
    if not isinstance(data["env_id"], str):
        raise error.Error(f"cannot resume {folder}: settings.json's env_id is not a string.")
    if not allow_import or ":" not in data["env_id"]:
        resolve_env_id(data, path, allow_import=False)
    settings = RunSettings.from_json(data)
    settings.out = str(folder)
    settings.overwrite = False
    return settings


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
        self.evaluations = 0
        self.checkpoints_written: list[str] = []
        chosen = preset(settings.env_id, settings.algo)
        self.eval_every = settings.eval_every or chosen.eval_every or max(budget // 50, 1)
        start = agent.num_steps
        self.next_eval = start + self.eval_every
        self.checkpoint_every = settings.checkpoint_every or max(
            budget // max(settings.checkpoints, 1), 1
        )
        self.next_checkpoint = start + self.checkpoint_every
        minutes = settings.checkpoint_minutes
        self.checkpoint_seconds = None if minutes is None else minutes * 60.0
        self.last_checkpoint_time = time.monotonic()

    def run(self) -> None:
        remaining = self.budget - self.agent.num_steps
        if remaining <= 0:
            return
        if self.settings.algo == "reinforce":
            self.agent.learn(max_episodes=10**9, max_steps=remaining, callback=self.on_update)
            self.reached_target = self._check_target(self._evaluate_and_log())
        else:
            self.agent.learn(remaining, callback=self.on_update, progress_bar=False)

    def save_checkpoint(self) -> None:
        name = f"step_{self.agent.num_steps}.pt"
        if name not in self.checkpoints_written:
            save_agent(self.agent, self.out / "checkpoints" / name)
            self.checkpoints_written.append(name)
        self.last_checkpoint_time = time.monotonic()

    def on_update(self, stats: dict[str, Any]) -> bool:
        steps = stats["steps"]
        self.progress.update(steps, stats)
        if steps >= self.next_checkpoint or self._checkpoint_is_due():
            while self.next_checkpoint <= steps:
                self.next_checkpoint += self.checkpoint_every
            self.save_checkpoint()
        if self.settings.algo != "reinforce" and steps >= self.next_eval:
            while self.next_eval <= steps:
                self.next_eval += self.eval_every
            returns = self._evaluate()
            stats = dict(stats, eval_mean=returns.mean(), eval_std=returns.std())
            self.metrics.write(stats)
            self.reached_target = self._check_target(returns)
            return not self.reached_target
        self.metrics.write(stats)
        return True

    def _checkpoint_is_due(self) -> bool:
        seconds = self.checkpoint_seconds
        return seconds is not None and time.monotonic() - self.last_checkpoint_time >= seconds

    def _evaluate(self) -> np.ndarray:
        self.evaluations += 1
        return _evaluate_agent(self.agent, self.settings.eval_episodes, seed=self.settings.seed)

    def _evaluate_and_log(self) -> np.ndarray:
        returns = self._evaluate()
        self.metrics.write(
            {"steps": self.agent.num_steps, "eval_mean": returns.mean(), "eval_std": returns.std()}
        )
        return returns

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
    from palaestra import make

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
        obs = observation
        if stats is not None:
            obs = (np.asarray(obs, dtype=np.float64) - stats["mean"]) / np.sqrt(stats["var"] + 1e-8)
        action = policy.predict(obs, deterministic=True)
        observation, _, terminated, truncated, _ = env.step(action)
        frames.append(env.render())
        if terminated or truncated:
            break
    return frames
