"""One training run end to end: what ``palaestra train`` does.

A run trains an agent with the env's preset hyper-parameters (plus overrides), shows a
progress bar, evaluates periodically on a few episodes (``periodic_eval_episodes``, played
at once on one batched env), stops once the policy is trained (see :data:`STOP_RULE`),
evaluates the final agent on ``eval_episodes`` episodes, and writes into its output folder:

- ``settings.json``: what was asked (``palaestra train --resume DIR`` reads it back);
- ``metrics.csv``: one row per update (PPO), per log interval (DQN, SAC) or per episode
  (REINFORCE), plus evaluation rows, under CleanRL-style names (``global_step``,
  ``charts/episodic_return``, ``charts/SPS``, ``losses/value_loss``, ``eval/mean_return``);
- ``tensorboard/``: the same metrics as TensorBoard event files;
- ``checkpoints/step_<N>.pt``: periodic checkpoints, and always one at the end;
- ``model.pt``: the final agent (weights, optimizer, hyper-parameters, normalization);
- ``best_model.pt``: the agent at its best evaluation (as Stable-Baselines3's
  ``EvalCallback`` keeps it): the best periodic evaluation, or the final agent when the
  final evaluation is at least as good;
- ``learning_curve.png``: returns against env steps;
- ``agent-episode-0.mp4``: the trained agent playing one episode;
- ``summary.json``: steps, the wall time of each phase (set-up, training, evaluation,
  checkpoints, artifacts), the final evaluation, the best model and how the run ended.

PPO's rollouts are always whole: the last one is not cut to fit the step budget (a
shortened last update once undid a LunarLander run), so a run may take up to one rollout
more than ``steps``, as Stable-Baselines3's ``learn`` does. The video is recorded on a
thread while the final evaluation runs and the learning curve is drawn; the run returns
once every artifact is written.

Runs survive: every file is written atomically, the folder is locked while a run uses it
(an ``flock`` on ``.lock``, which names the owner's host and process id), an existing run
is never overwritten unless asked (``overwrite``), and Ctrl-C ends with a final
checkpoint, ``model.pt`` and ``summary.json``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import math
import os
import shutil
import socket
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from palaestra import error
from palaestra.train._dynamo_free import skip_dynamo_import
from palaestra.train.checkpoint import (
    CheckpointError,
    TrainedPolicy,
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

STOP_RULE = (
    "a periodic evaluation reaches the target with deterministic and with sampled actions, "
    "and the final evaluation's episodes (deterministic) confirm it"
)
"""When a run with a target stops early: a policy whose most likely action balances the
pole while its sampled actions do not (a lucky argmax of a nearly uniform policy) goes on
training. The sampled-action evaluation runs only when the deterministic one reached the
target, and the confirmation only when both did; the confirmation is the final
evaluation."""

EVALUATION_BUDGET = 1.0
"""Batched env steps the default periodic evaluations may play per batched training step.

A scheduled evaluation is skipped while the periodic evaluations so far (and the
evaluations that check a target) have played more steps one after another (the longest
episode of each round) than training has (env steps / sub-envs). Long episodes of a
trained policy would otherwise cost several times the training itself (80 evaluations
of 500-step CartPole episodes for 20k training steps); the spacing follows from counts,
not from time, so a seed still gives the same run."""

PHASES = ("setup", "training", "evaluation", "checkpoints", "artifacts")
"""The phases whose wall time ``summary.json`` reports under ``seconds``."""

ARTIFACTS = (
    "settings.json",
    "metrics.csv",
    "model.pt",
    "best_model.pt",
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
        eval_episodes: episodes of the final evaluation (which also confirms a target).
        periodic_eval_episodes: episodes of each periodic evaluation, played at once.
        eval_every: env steps between evaluations; ``None`` takes the preset's (or about
            50 per run) and then skips an evaluation while the periodic ones have played
            more batched steps than training has (see :data:`EVALUATION_BUDGET`).
        target: stop once evaluations reach this mean return (:data:`STOP_RULE`);
            ``None`` takes the env spec's ``reward_threshold``.
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
    periodic_eval_episodes: int = 10
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
        if self.out == "":
            raise ValueError("out is an empty path; name a folder (or None for runs/...).")
        for name in ("eval_episodes", "periodic_eval_episodes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}.")
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
        ValueError: for an unknown hyper-parameter in ``overrides``, or a value of the
            wrong kind (text for a number, a number for a flag).

    Example:
        >>> agent, budget, target = build_agent(RunSettings("CartPole-v1"))
        >>> type(agent).__name__, budget, target
        ('PPO', 100000, 475.0)
    """
    skip_dynamo_import()
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
    check_value_kinds(config_class, settings.overrides)
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


_NUMBERS = frozenset({"int", "float", "None"})
_FLAGS = frozenset({"bool", "None"})


def check_value_kinds(config_class: type, values: dict[str, Any]) -> None:
    """Refuse a hyper-parameter value of the wrong kind before any config compares it.

    A field annotated with numbers only (``float``, ``int | None``) takes a number (or
    ``None`` where allowed); a flag (``bool``) takes ``True`` or ``False``. Other fields
    are left to the config's own checks.

    Args:
        config_class: a dataclass of hyper-parameters (``PPOConfig``, ...).
        values: field name -> value (``--set`` parses ``abc`` as the text ``'abc'``).

    Raises:
        ValueError: naming the field, the value and the kind expected.

    Example:
        >>> from palaestra.train.ppo import PPOConfig
        >>> check_value_kinds(PPOConfig, {"learning_rate": 1e-3, "anneal_lr": True})
        >>> check_value_kinds(PPOConfig, {"learning_rate": "abc"})
        Traceback (most recent call last):
        ...
        ValueError: learning_rate='abc' is not a number (e.g. learning_rate=0.0003).
    """
    import re

    fields = {field.name: field for field in dataclasses.fields(config_class)}
    for name, value in values.items():
        field = fields.get(name)
        if field is None:
            continue
        kinds = set(re.findall(r"\w+", str(field.type)))
        if value is None and "None" in kinds:
            continue
        if kinds <= _NUMBERS and (isinstance(value, bool) or not isinstance(value, (int, float))):
            expected = "a number"
        elif kinds <= _FLAGS and not isinstance(value, bool):
            expected = "true or false"
        else:
            continue
        example = field.default if field.default not in (None, dataclasses.MISSING) else 1
        raise ValueError(f"{name}={value!r} is not {expected} (e.g. {name}={example!r}).")


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

    def finish(self, steps: int, reason: str) -> None:
        """End the bar at ``steps`` (full, not stuck where an early stop left it)."""
        if self.bar is not None:
            self.bar.total = steps
            self.bar.n = steps
            self.bar.set_postfix_str(reason)
        elif self.enabled:
            print(f"{steps}/{self.total} steps | {reason}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _EvaluationEnvs:
    """One batched env per episode count, made once and reused by every evaluation.

    Each evaluation wraps it with the agent's current observation normalization (frozen)
    and honours the agent's step timeout. The agent acts through a
    :class:`~palaestra.train.checkpoint.TrainedPolicy` of its current weights, made once
    per update: the agent's own ``predict`` re-syncs its acting network at every call,
    which made an evaluation step about 3x dearer.
    """

    def __init__(self, agent: Any):
        self.agent = agent
        self._envs: dict[int, Any] = {}
        self._policy: tuple[int, Any] | None = None
        self.played_steps = 0
        """Batched steps played so far: the longest episode of each round, summed."""

    def evaluate(self, episodes: int, seed: int, deterministic: bool = True) -> np.ndarray:
        num_envs = min(episodes, 100)
        if num_envs not in self._envs:
            self._envs[num_envs] = self._make(num_envs)
        envs = load_normalization_state(
            self._envs[num_envs], normalization_state(self.agent.env), freeze=True
        )
        policy = self._acting_policy()
        returns, lengths = evaluate(
            policy, envs, episodes, deterministic, seed=seed, return_lengths=True
        )
        self.played_steps += sum(
            int(lengths[start : start + num_envs].max()) for start in range(0, episodes, num_envs)
        )
        return returns

    def _acting_policy(self) -> Any:
        """Return the agent's current weights as a TrainedPolicy (or the agent, lacking one)."""
        agent, env = self.agent, self.agent.env
        if not callable(getattr(agent, "state", None)) or not hasattr(env, "single_action_space"):
            return agent
        if self._policy is None or self._policy[0] != agent.num_steps:
            spaces = env.single_action_space, env.single_observation_space
            self._policy = (agent.num_steps, TrainedPolicy(agent.state(), *spaces, agent.env_id))
        return self._policy[1]

    def _make(self, num_envs: int) -> Any:
        from palaestra import make_vec

        envs = make_vec(self.agent.env_id, num_envs=num_envs)
        timeout = getattr(self.agent.config, "step_timeout", None)
        if timeout is not None:
            from palaestra.train.diagnostics import DiagnosticsWrapper

            envs = DiagnosticsWrapper(envs, step_timeout=timeout)
        return envs

    def close(self) -> None:
        for envs in self._envs.values():
            envs.close()
        self._envs.clear()


class _Clock:
    """Wall time spent in each of :data:`PHASES`."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(PHASES, 0.0)

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - start

    def rounded(self) -> dict[str, float]:
        return {name: round(value, 3) for name, value in self.seconds.items()}


class _Background:
    """Run ``function(*args)`` on a thread; :meth:`result` joins and re-raises its error."""

    def __init__(self, function: Callable[..., Any], *args: Any):
        self._outcome: list[Any] = []
        self._thread = threading.Thread(target=self._run, args=(function, *args))
        self._thread.start()

    def _run(self, function: Callable[..., Any], *args: Any) -> None:
        try:
            self._outcome[:] = [True, function(*args)]
        except BaseException as exc:  # handed to the main thread by result()
            self._outcome[:] = [False, exc]

    def result(self) -> Any:
        self._thread.join()
        succeeded, value = self._outcome
        if not succeeded:
            raise value
        return value


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
        palaestra.error.Error: if ``out`` is a file or cannot be created (naming why), or
            holds a run and neither ``overwrite`` nor ``resume`` is set.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "model.pt").write_bytes(b"")
        >>> prepare_folder(folder, overwrite=False)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        palaestra.error.Error: run folder ... already holds a run (model.pt); pass --overwrite ...
    """
    try:
        if out.exists() and not out.is_dir():
            raise error.Error(
                f"--out {str(out)!r} is a file, not a folder; choose a folder path for the run."
            )
        out.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise error.Error(
            f"--out {str(out)!r} cannot be created: a parent path is a file."
        ) from None
    except OSError as exc:  # no permission, a name too long, a read-only filesystem, ...
        raise error.Error(
            f"--out {str(out)!r} cannot be created: {exc.strerror or exc}; choose a folder "
            "you can write to."
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
    clock = _Clock()
    with clock.phase("setup"):
        _remove_stale_temporaries(out)
        newest = _newest_state(settings, out) if resume else None
        agent, budget, target = build_agent(settings)
        if resume:
            _resume_agent(agent, newest, out)
        else:
            _atomic_write_text(out / "settings.json", json.dumps(settings.to_json(), indent=2))
        start_step = agent.num_steps
        progress = _Progress(budget, settings.progress, initial=min(start_step, budget))
        tensorboard = out / "tensorboard" if settings.tensorboard else None
        after_step = start_step if resume else None
        metrics = MetricsWriter(out / "metrics.csv", tensorboard, resume, after_step)
    evaluations = _EvaluationEnvs(agent)
    best = _previous_best(out) if resume else None
    video = None
    try:
        with metrics:
            loop = _TrainingLoop(
                agent, settings, budget, target, metrics, progress, out, clock, evaluations, best
            )
            interrupted = loop.run_interruptibly()
            with clock.phase("checkpoints"):
                loop.save_checkpoint()
                save_agent(agent, out / "model.pt")
            if interrupted:
                summary = _summary(agent, settings, clock, target, loop, None, start_step)
                summary["interrupted"] = True
                _atomic_write_text(out / "summary.json", json.dumps(summary, indent=2))
                raise RunInterrupted(
                    f"interrupted at step {agent.num_steps}: checkpoint, model.pt and "
                    f"summary.json are in {out}; continue with `palaestra train --resume {out}`."
                )
            stop_video = threading.Event()
            if settings.video:
                video = _Background(_record_video, out / "model.pt", out, 1000, stop_video)
            try:
                final = loop.final
                if final is None:
                    with clock.phase("evaluation"):
                        seed = settings.seed + FINAL_EVAL_SEED
                        final = evaluations.evaluate(settings.eval_episodes, seed=seed)
            except KeyboardInterrupt:
                _abandon(video, stop_video)
                raise _interrupted_after_training(agent, out, "the final evaluation") from None
            metrics.write(
                {"steps": agent.num_steps, "eval_mean": final.mean(), "eval_std": final.std()}
            )
            with clock.phase("checkpoints"):
                loop.keep_final_if_best(final, settings.eval_episodes)
    finally:
        evaluations.close()
    with clock.phase("artifacts"):
        try:
            rows = read_metrics(out / "metrics.csv")
            _write_plot(rows, out / "learning_curve.png", f"{agent.env_id} ({settings.algo})")
            skipped = None if video is None else video.result()
        except KeyboardInterrupt:
            _abandon(video, stop_video)
            raise _interrupted_after_training(agent, out, "the learning curve or video") from None
        if skipped is not None:
            warnings.warn(f"Skipping the video of the trained agent: {skipped}", stacklevel=3)
    summary = _summary(agent, settings, clock, target, loop, final, start_step)
    _atomic_write_text(out / "summary.json", json.dumps(summary, indent=2))
    return summary


def _abandon(video: _Background | None, stop: threading.Event) -> None:
    """Stop the video thread (no file is left half-written) and wait for it."""
    if video is None:
        return
    stop.set()
    with contextlib.suppress(Exception):
        video.result()


def _previous_best(out: Path) -> dict[str, Any] | None:
    """Return the best evaluation of the resumed run (from its summary), if it kept one."""
    try:
        best = json.loads((out / "summary.json").read_text()).get("best_model")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(best, dict) or not (out / "best_model.pt").is_file():
        return None
    return best if isinstance(best.get("eval_mean"), (int, float)) else None


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
    clock: _Clock,
    target: float | None,
    loop: _TrainingLoop,
    final: np.ndarray | None,
    start_step: int,
) -> dict[str, Any]:
    seconds = clock.rounded()
    return {
        "env_id": agent.env_id,
        "algo": settings.algo,
        "seed": settings.seed,
        "steps": agent.num_steps,
        "start_step": start_step,
        "train_seconds": seconds["training"],
        "seconds": seconds,
        "eval_episodes": settings.eval_episodes,
        "periodic_eval_episodes": settings.periodic_eval_episodes,
        "eval_mode": "deterministic",
        "eval_mean": None if final is None else float(final.mean()),
        "eval_std": None if final is None else float(final.std()),
        "target": target,
        "stop_rule": STOP_RULE if target is not None else None,
        "reached_target": loop.reached_target,
        "evaluations": loop.evaluations,
        "evaluations_skipped": loop.evaluations_skipped,
        "best_model": loop.best,
        "checkpoints": loop.checkpoints_written,
        "interrupted": False,
        "backend": getattr(agent, "backend", "autograd"),
        "backend_reason": getattr(agent, "backend_reason", "the algorithm has one backend"),
    }


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
        clock: _Clock,
        evaluations: _EvaluationEnvs,
        best: dict[str, Any] | None = None,
    ):
        self.agent, self.settings, self.budget, self.target = agent, settings, budget, target
        self.metrics, self.progress, self.out = metrics, progress, out
        self.clock, self.evaluation_envs = clock, evaluations
        self.reached_target = False
        self.evaluations = 0
        self.evaluations_skipped = 0
        self.budgeted = settings.eval_every is None
        self.start_step = agent.num_steps
        self.best = best
        self.final: np.ndarray | None = None
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

    def run_interruptibly(self) -> bool:
        """Train to the budget or the target; return whether Ctrl-C ended it.

        The time spent training goes to the clock's ``training`` phase, without the
        evaluations and checkpoints made meanwhile (their own phases).
        """
        others = self.clock.seconds["evaluation"] + self.clock.seconds["checkpoints"]
        started = time.perf_counter()
        interrupted = False
        try:
            self.run()
        except KeyboardInterrupt:
            interrupted = True
        elapsed = time.perf_counter() - started
        spent = self.clock.seconds["evaluation"] + self.clock.seconds["checkpoints"] - others
        self.clock.seconds["training"] += elapsed - spent
        if self.reached_target:
            self.progress.finish(self.agent.num_steps, "target reached")
        self.progress.close()
        return interrupted

    def run(self) -> None:
        remaining = self.budget - self.agent.num_steps
        if remaining <= 0:
            return
        if self.settings.algo == "reinforce":
            self.agent.learn(max_episodes=10**9, max_steps=remaining, callback=self.on_update)
            row, self.reached_target = self._evaluate({"steps": self.agent.num_steps})
            self.metrics.write(row)
        else:
            remaining = _whole_rollouts(self.agent.config, remaining)
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
            with self.clock.phase("checkpoints"):
                self.save_checkpoint()
        if self.settings.algo != "reinforce" and steps >= self.next_eval:
            while self.next_eval <= steps:
                self.next_eval += self.eval_every
            if self._evaluation_is_affordable():
                row, self.reached_target = self._evaluate(stats)
                self.metrics.write(row)
                return not self.reached_target
            self.evaluations_skipped += 1
        self.metrics.write(stats)
        return True

    def _evaluation_is_affordable(self) -> bool:
        if not self.budgeted:
            return True
        trained = (self.agent.num_steps - self.start_step) / getattr(self.agent.env, "num_envs", 1)
        return self.evaluation_envs.played_steps <= EVALUATION_BUDGET * trained

    def _checkpoint_is_due(self) -> bool:
        seconds = self.checkpoint_seconds
        return seconds is not None and time.monotonic() - self.last_checkpoint_time >= seconds

    def _evaluate(self, stats: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """Run a periodic evaluation; return its metrics row and whether the run stops.

        The stop follows :data:`STOP_RULE`; a confirmed stop keeps the confirmation as
        the final evaluation (:attr:`final`).
        """
        settings, envs = self.settings, self.evaluation_envs
        episodes = settings.periodic_eval_episodes
        with self.clock.phase("evaluation"):
            self.evaluations += 1
            returns = envs.evaluate(episodes, seed=settings.seed)
        row = dict(stats, eval_mean=returns.mean(), eval_std=returns.std())
        self._keep_if_best(float(returns.mean()), episodes)
        if self.target is None or float(returns.mean()) < self.target:
            return row, False
        with self.clock.phase("evaluation"):
            sampled = envs.evaluate(episodes, seed=settings.seed, deterministic=False)
        row["eval_stochastic_mean"] = sampled.mean()
        if float(sampled.mean()) < self.target:
            return row, False
        with self.clock.phase("evaluation"):
            seed = settings.seed + FINAL_EVAL_SEED
            confirmation = envs.evaluate(settings.eval_episodes, seed=seed)
        if float(confirmation.mean()) < self.target:
            return row, False
        self.final = confirmation
        return row, True

    def _keep_if_best(self, mean: float, episodes: int) -> None:
        if self.best is not None and mean <= self.best["eval_mean"]:
            return
        with self.clock.phase("checkpoints"):
            save_agent(self.agent, self.out / "best_model.pt")
        self.best = {"steps": self.agent.num_steps, "eval_mean": mean, "eval_episodes": episodes}

    def keep_final_if_best(self, final: np.ndarray, episodes: int) -> None:
        """Make ``model.pt`` the best model too when it reached the target or is no worse.

        A run that stopped at its target keeps its final agent as the best: an earlier
        evaluation may score as high with a policy that is not trained yet (the lucky
        argmax :data:`STOP_RULE` guards against).
        """
        mean = float(final.mean())
        if not self.reached_target and self.best is not None and mean < self.best["eval_mean"]:
            return
        temporary = self.out / f".best_model.pt.{os.getpid()}.tmp"
        shutil.copyfile(self.out / "model.pt", temporary)
        os.replace(temporary, self.out / "best_model.pt")
        self.best = {"steps": self.agent.num_steps, "eval_mean": mean, "eval_episodes": episodes}


def _whole_rollouts(config: Any, steps: int) -> int:
    """Round ``steps`` up to whole rollouts for an on-policy config (``n_steps`` per env)."""
    n_steps = getattr(config, "n_steps", None)
    if not isinstance(n_steps, int) or n_steps < 1:
        return steps
    rollout = n_steps * int(getattr(config, "num_envs", 1))
    return math.ceil(steps / rollout) * rollout


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
    skipped = _record_video(model_path, folder, max_steps, threading.Event())
    if skipped is not None:
        warnings.warn(f"Skipping the video of the trained agent: {skipped}", stacklevel=2)
        return None
    return Path(folder) / "agent-episode-0.mp4"


def _record_video(
    model_path: str | Path, folder: str | Path, max_steps: int, stop: threading.Event
) -> str | None:
    """Write ``agent-episode-0.mp4``; return why it was skipped, or ``None`` once written.

    Returns early, writing nothing, once ``stop`` is set (the run was interrupted).
    """
    from palaestra import make

    policy = load_policy(model_path)
    try:
        from palaestra.utils.save_video import save_video

        env = make(policy.env_id, render_mode="rgb_array")
        frames = _play_for_video(policy, env, max_steps, stop)
        fps = env.metadata.get("render_fps", 30)
        env.close()
        if stop.is_set():
            return "the run was interrupted"
        save_video(frames, str(folder), name_prefix="agent", fps=fps)
    except (ImportError, error.Error, ValueError) as exc:
        return str(exc)
    return None


def _play_for_video(
    policy: Any, env: Any, max_steps: int, stop: threading.Event
) -> list[np.ndarray]:
    stats = policy.normalization.get("observation")
    observation, _ = env.reset(seed=0)
    frames = [env.render()]
    for _ in range(max_steps):
        if stop.is_set():
            break
        obs = observation
        if stats is not None:
            obs = (np.asarray(obs, dtype=np.float64) - stats["mean"]) / np.sqrt(stats["var"] + 1e-8)
        action = policy.predict(obs, deterministic=True)
        observation, _, terminated, truncated, _ = env.step(action)
        frames.append(env.render())
        if terminated or truncated:
            break
    return frames
