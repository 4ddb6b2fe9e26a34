"""Catch the usual RL failure modes at the step where they first appear.

:class:`DiagnosticsWrapper` checks every action, observation and reward of a single or a
vector env (non-finite values, values outside their space) and can bound how long one
``step`` may take, so a hung env fails loudly instead of stalling training.
:class:`TrainingMonitor` checks each optimizer update for NaN losses and exploding gradient
norms. Both either raise :class:`DiagnosticsError` or warn with :class:`DiagnosticsWarning`
(``on_problem="raise"|"warn"``), with a message naming the value, the step, the sub-env
and the likely fix.

Checklist when training misbehaves (each item is one of the checks here):

1. observations non-finite or outside ``observation_space`` -> fix the env's dynamics or
   its declared bounds; normalize observations;
2. actions non-finite or outside ``action_space`` -> clip or squash the policy output;
3. rewards non-finite -> guard divisions/logs in the reward; clip or normalize rewards;
4. loss NaN or gradient norm exploding -> lower the learning rate, normalize observations
   and rewards, clip gradients;
5. a ``step`` that never returns -> look for an infinite loop or blocking I/O in the env.

Example:
    >>> import palaestra as gym
    >>> env = DiagnosticsWrapper(gym.make("CartPole-v1"))
    >>> _ = env.reset(seed=0)
    >>> try:
    ...     env.step(5)
    ... except DiagnosticsError as problem:
    ...     print(str(problem).splitlines()[0])
    action out of space at step 1: 5 is not in Discrete(2).
"""

from __future__ import annotations

import math
import threading
import time
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from palaestra import error
from palaestra.core import Wrapper
from palaestra.vector import VectorEnv, VectorWrapper

# numpy 2 writes scalars as ``np.float64(inf)``; the messages show values as numbers (``inf``),
# as numpy 1 did, and arrays as ``array([nan], dtype=float32)`` either way.
_PLAIN_SCALARS: dict[str, Any] = (
    {"legacy": "1.25"} if int(np.__version__.split(".")[0]) >= 2 else {}
)


def _shown(value: Any) -> str:
    """``repr(value)`` with numpy scalars (alone or inside containers) as plain numbers."""
    with np.printoptions(**_PLAIN_SCALARS):
        return repr(value)


ON_PROBLEM_CHOICES = ("raise", "warn")

FIXES = {
    "observation": (
        "check the env's dynamics and that observation_space declares the true bounds; "
        "normalize observations (wrappers.NormalizeObservation)."
    ),
    "action": (
        "clip or squash the policy output into the action space "
        "(wrappers.ClipAction, a tanh-squashed policy) and check the action dtype."
    ),
    "reward": "guard divisions and logs in the reward function; clip or normalize rewards.",
    "loss": (
        "lower the learning rate, normalize observations and rewards, and check the inputs "
        "for NaN (wrap the env in DiagnosticsWrapper)."
    ),
    "gradient": (
        "lower the learning rate, clip gradients (max_grad_norm) and normalize observations "
        "and rewards."
    ),
    "timeout": (
        "look for an infinite loop, a deadlock or blocking I/O in the env's step; "
        "raise step_timeout if the env is just slow."
    ),
}


class DiagnosticsError(error.Error):
    """A training-time problem found by the diagnostics, raised with ``on_problem="raise"``."""


class DiagnosticsWarning(RuntimeWarning):
    """A training-time problem found by the diagnostics, warned with ``on_problem="warn"``."""


class StepTimeoutError(DiagnosticsError, TimeoutError):
    """An env's ``step`` did not return within the allowed time."""


NON_FINITE_FIX = (
    "normalize observations and rewards, lower the learning rate, and guard divisions and "
    "logs in the env's reward (find the first bad value with --diagnostics / "
    "DiagnosticsWrapper); to train on anyway, opt out with check_finite=False "
    "(palaestra train --no-check-finite)."
)


class NonFiniteError(DiagnosticsError):
    """Training met a non-finite observation, reward, loss or gradient (``check_finite``).

    The message names the env step (and update) and ends with the likely fix.

    Example:
        >>> str(NonFiniteError("non-finite reward at env step 8")).splitlines()[1][:11]
        'Likely fix:'
    """

    def __init__(self, headline: str):
        super().__init__(f"{headline}\nLikely fix: {NON_FINITE_FIX}")


def check_finite_rewards(rewards: Any, step: int) -> None:
    """Raise :class:`NonFiniteError` if any of a batch of rewards is NaN or infinite.

    Args:
        rewards: the rewards of one (vector) step.
        step: the env-step count, for the message.

    Example:
        >>> check_finite_rewards(np.array([1.0, 0.5]), step=2)
        >>> try:
        ...     check_finite_rewards(np.array([1.0, np.nan]), step=4)
        ... except NonFiniteError as problem:
        ...     print(str(problem).splitlines()[0])
        non-finite reward at env step 4 in sub-env 1: nan; training stopped.
    """
    values = np.asarray(rewards, dtype=np.float64)
    if np.isfinite(values).all():
        return
    index = int(np.flatnonzero(~np.isfinite(values.reshape(-1)))[0])
    where = f" in sub-env {index}" if values.ndim else ""
    raise NonFiniteError(
        f"non-finite reward at env step {step}{where}: {float(values.reshape(-1)[index])!r}; "
        "training stopped."
    )


def check_finite_observations(observations: Any, step: int, batched: bool = True) -> None:
    """Raise :class:`NonFiniteError` at the first NaN or infinite observation value.

    Args:
        observations: the observations one (vector) step returned; Dict and Tuple
            observations are checked key by key.
        step: the env-step count, for the message.
        batched: ``observations`` has one row per sub-env (a vector env), named in the
            message; ``False`` for a single env.

    Example:
        >>> check_finite_observations(np.zeros((2, 3)), step=2)
        >>> try:
        ...     check_finite_observations(np.array([[0.0, 1.0], [np.inf, 0.0]]), step=6)
        ... except NonFiniteError as problem:
        ...     print(str(problem).splitlines()[0])
        non-finite observation at env step 6 in sub-env 1: array([inf,  0.]); training stopped.
    """
    for name, leaf in _leaves(observations, "observation"):
        values = np.asarray(leaf)
        if values.dtype.kind not in "fc" or np.isfinite(values).all():
            continue
        where, shown = "", values
        if batched and values.ndim:
            rows = ~np.isfinite(values.reshape(len(values), -1)).all(axis=1)
            index = int(np.flatnonzero(rows)[0])
            where, shown = f" in sub-env {index}", values[index]
        raise NonFiniteError(
            f"non-finite {name} at env step {step}{where}: {shown!r}; training stopped."
        )


def _leaves(value: Any, name: str) -> list[tuple[str, Any]]:
    """``(name, array)`` for each array of a (possibly nested Dict/Tuple) observation."""
    items: Iterable[tuple[Any, Any]]
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, tuple):
        items = enumerate(value)
    else:
        return [(name, value)]
    return [leaf for key, item in items for leaf in _leaves(item, f"{name}[{key!r}]")]


def _check_on_problem(on_problem: str) -> None:
    if on_problem not in ON_PROBLEM_CHOICES:
        raise ValueError(f"on_problem must be one of {ON_PROBLEM_CHOICES}, got {on_problem!r}.")


class _Reporter:
    """Raises or warns about problems; in warn mode each kind is reported once."""

    def __init__(self, on_problem: str):
        _check_on_problem(on_problem)
        self.on_problem = on_problem
        self.reported: set[str] = set()

    def report(self, kind: str, headline: str) -> None:
        message = f"{headline}\nLikely fix: {FIXES[kind]}"
        if self.on_problem == "raise":
            raise DiagnosticsError(message)
        if headline.split(" at ")[0] not in self.reported:
            self.reported.add(headline.split(" at ")[0])
            warnings.warn(message, DiagnosticsWarning, stacklevel=3)


def find_problem(value: Any, space: Any, what: str) -> str | None:
    """Describe what is wrong with ``value`` as a member of ``space``, or return ``None``.

    Args:
        value: an observation or action.
        space: the space it should belong to (``None`` checks finiteness only).
        what: ``"observation"`` or ``"action"``, for the description.

    Returns:
        ``"non-finite <what>"`` or ``"<what> out of space"`` followed by details, or ``None``.

    Example:
        >>> from palaestra.spaces import Box
        >>> find_problem(np.array([np.nan], dtype=np.float32), Box(-1, 1, (1,)), "observation")
        'non-finite observation: array([nan], dtype=float32) contains NaN or inf'
        >>> print(find_problem(np.array([3.0], dtype=np.float32), Box(-1, 1, (1,)), "action"))
        action out of space: array([3.], dtype=float32) is not in Box(-1.0, 1.0, (1,), float32)
    """
    array = np.asarray(value) if not isinstance(value, (dict, tuple)) else None
    if array is not None and array.dtype.kind in "fc" and not np.all(np.isfinite(array)):
        return f"non-finite {what}: {_shown(value)} contains NaN or inf"
    if space is not None and not space.contains(value):
        return f"{what} out of space: {_shown(value)} is not in {space}"
    return None


class _StepTimer:
    """Runs a call in a daemon thread and gives up waiting after ``timeout`` seconds.

    A daemon thread never keeps the interpreter alive, so a step that truly hangs does not
    block the program's exit after the error is raised.
    """

    def __init__(self, timeout: float):
        if not timeout > 0:
            raise ValueError(f"step_timeout must be a positive number of seconds, got {timeout}.")
        self.timeout = timeout

    def call(self, function: Any, *args: Any) -> Any:
        outcome: dict[str, Any] = {}

        def target() -> None:
            try:
                outcome["value"] = function(*args)
            except BaseException as exc:  # handed over to the calling thread
                outcome["error"] = exc

        worker = threading.Thread(target=target, daemon=True, name="palaestra-step")
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            return _TIMED_OUT
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]


_TIMED_OUT = object()


class DiagnosticsWrapper(Wrapper):
    """Check every action, observation and reward of an env, and optionally time its steps.

    Wrapping a vector env returns a :class:`VectorDiagnosticsWrapper`, which does the same
    per sub-env. Steps are counted from 1 since the wrapper was created; the reset
    observation is reported as step 0.

    Args:
        env: a single env (or a vector env, see above).
        on_problem: ``"raise"`` a :class:`DiagnosticsError` or ``"warn"`` once per kind of
            problem with a :class:`DiagnosticsWarning`.
        step_timeout: seconds one ``step`` may take before :class:`StepTimeoutError`
            (always raised); ``None`` disables the timer (and its thread hand-off).

    Raises:
        ValueError: for an unknown ``on_problem`` or a non-positive ``step_timeout``.

    Example:
        >>> import palaestra as gym
        >>> envs = DiagnosticsWrapper(gym.make_vec("CartPole-v1", num_envs=2))
        >>> type(envs).__name__
        'VectorDiagnosticsWrapper'
    """

    env: Any  # the wrapped env (typed loosely: any env or vector env)

    def __new__(cls, env: Any, *args: Any, **kwargs: Any) -> Any:
        """Build a :class:`VectorDiagnosticsWrapper` instead when ``env`` is a vector env."""
        if cls is DiagnosticsWrapper and isinstance(env, VectorEnv):
            return VectorDiagnosticsWrapper(env, *args, **kwargs)
        return super().__new__(cls)

    def __init__(self, env: Any, on_problem: str = "raise", step_timeout: float | None = None):
        super().__init__(env)
        self.reporter = _Reporter(on_problem)
        self.timer = _StepTimer(step_timeout) if step_timeout is not None else None
        self.num_steps = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Reset the env and check the first observation (reported as step 0)."""
        observation, info = self.env.reset(seed=seed, options=options)
        self._check(observation, self.observation_space, "observation", self.num_steps)
        return observation, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Check the action, step the env (timed if asked), then check what came back."""
        self.num_steps += 1
        step = self.num_steps
        self._check(action, self.action_space, "action", step)
        result = _timed_step(self.timer, self.env.step, action, step, None)
        observation, reward, terminated, truncated, info = result
        self._check(observation, self.observation_space, "observation", step)
        if not math.isfinite(float(reward)):
            self.reporter.report("reward", f"non-finite reward at step {step}: {_shown(reward)}.")
        return observation, reward, terminated, truncated, info

    def _check(self, value: Any, space: Any, what: str, step: int) -> None:
        problem = find_problem(value, space, what)
        if problem is not None:
            headline, detail = problem.split(": ", 1)
            self.reporter.report(what, f"{headline} at step {step}: {detail}.")


def _timed_step(timer: _StepTimer | None, step: Any, action: Any, count: int, n: Any) -> Any:
    if timer is None:
        return step(action)
    started = time.perf_counter()
    result = timer.call(step, action)
    if result is _TIMED_OUT:
        where = "" if n is None else f" (one of {n} sub-envs)"
        raise StepTimeoutError(
            f"env step {count}{where} did not return within step_timeout={timer.timeout} s "
            f"(waited {time.perf_counter() - started:.2f} s); the env looks hung.\n"
            f"Likely fix: {FIXES['timeout']}"
        )
    return result


class VectorDiagnosticsWrapper(VectorWrapper):
    """The vector-env form of :class:`DiagnosticsWrapper`: checks each sub-env's data.

    Messages name the sub-env index. Arguments are those of :class:`DiagnosticsWrapper`.

    Example:
        >>> import palaestra as gym
        >>> envs = VectorDiagnosticsWrapper(gym.make_vec("CartPole-v1", num_envs=2))
        >>> _ = envs.reset(seed=0)
        >>> try:
        ...     envs.step(np.array([0, 7]))
        ... except DiagnosticsError as problem:
        ...     print(str(problem).splitlines()[0])
        action out of space at step 1 in sub-env 1: 7 is not in Discrete(2).
    """

    env: Any  # the wrapped env (typed loosely: any env or vector env)

    def __init__(self, env: Any, on_problem: str = "raise", step_timeout: float | None = None):
        super().__init__(env)
        self.reporter = _Reporter(on_problem)
        self.timer = _StepTimer(step_timeout) if step_timeout is not None else None
        self.num_steps = 0

    def reset(self, *, seed: Any = None, options: dict | None = None) -> tuple[Any, dict]:
        """Reset the sub-envs and check their first observations (step 0)."""
        observations, info = self.env.reset(seed=seed, options=options)
        self._check_batch(observations, self.single_observation_space, "observation", 0)
        return observations, info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict]:
        """Check the actions, step the sub-envs (timed if asked), then check the results."""
        self.num_steps += 1
        step = self.num_steps
        self._check_batch(actions, self.single_action_space, "action", step)
        result = _timed_step(self.timer, self.env.step, actions, step, self.num_envs)
        observations, rewards, terminated, truncated, info = result
        self._check_batch(observations, self.single_observation_space, "observation", step)
        bad = np.flatnonzero(~np.isfinite(np.asarray(rewards, dtype=np.float64)))
        if len(bad):
            index = int(bad[0])
            self.reporter.report(
                "reward",
                f"non-finite reward at step {step} in sub-env {index}: {_shown(rewards[index])}.",
            )
        return observations, rewards, terminated, truncated, info

    def _check_batch(self, batch: Any, space: Any, what: str, step: int) -> None:
        array = np.asarray(batch) if isinstance(batch, np.ndarray) else None
        if array is not None and _batch_is_clean(array, space):
            return
        for index in range(self.num_envs):
            problem = find_problem(_row(batch, index), space, what)
            if problem is not None:
                headline, detail = problem.split(": ", 1)
                self.reporter.report(
                    what, f"{headline} at step {step} in sub-env {index}: {detail}."
                )
                return


def _row(batch: Any, index: int) -> Any:
    if isinstance(batch, np.ndarray):
        row = batch[index]
        return row.item() if row.ndim == 0 else row
    return batch[index]


def _batch_is_clean(batch: np.ndarray, space: Any) -> bool:
    """Fast path: a whole Box/Discrete batch checked with a few vectorized comparisons."""
    kind = type(space).__name__
    if kind == "Box":
        if batch.shape[1:] != space.shape or not np.all(np.isfinite(batch)):
            return False
        return bool(np.all(batch >= space.low) and np.all(batch <= space.high))
    if kind == "Discrete" and batch.dtype.kind in "iu" and batch.ndim == 1:
        return bool(np.all(batch >= space.start) and np.all(batch < space.start + space.n))
    return False


class TrainingMonitor:
    """Checks each optimizer update: a non-finite loss or an exploding gradient norm.

    Trainers call :meth:`check_update` after computing the gradients and before the
    optimizer step, so the problem is reported at the update where it first appears.

    Args:
        on_problem: ``"raise"`` or ``"warn"``.
        max_grad_norm: a gradient norm (before clipping) above this counts as exploding.

    Raises:
        ValueError: for an unknown ``on_problem`` or a non-positive ``max_grad_norm``.

    Example:
        >>> monitor = TrainingMonitor()
        >>> try:
        ...     monitor.check_update(float("nan"), 1.0, step=640)
        ... except DiagnosticsError as problem:
        ...     print(str(problem).splitlines()[0])
        NaN loss at update 1 (env step 640): nan.
    """

    def __init__(self, on_problem: str = "raise", max_grad_norm: float = 1e4):
        if not max_grad_norm > 0:
            raise ValueError(f"max_grad_norm must be positive, got {max_grad_norm!r}.")
        self.reporter = _Reporter(on_problem)
        self.max_grad_norm = max_grad_norm
        self.num_updates = 0

    def check_update(self, loss: Any, grad_norm: Any, step: int) -> None:
        """Check one update's loss and total gradient norm (before clipping).

        Args:
            loss: the loss (a float or a 0-d tensor).
            grad_norm: the global gradient norm (a float or a 0-d tensor).
            step: env steps taken so far, for the message.

        Raises:
            DiagnosticsError: with ``on_problem="raise"`` when a problem is found.
        """
        self.num_updates += 1
        where = f"update {self.num_updates} (env step {step})"
        loss_value, norm_value = float(loss), float(grad_norm)
        if not math.isfinite(loss_value):
            label = "NaN loss" if math.isnan(loss_value) else "infinite loss"
            self.reporter.report("loss", f"{label} at {where}: {loss_value!r}.")
        elif not math.isfinite(norm_value) or norm_value > self.max_grad_norm:
            self.reporter.report(
                "gradient",
                f"exploding gradient norm at {where}: {norm_value:.4g} > "
                f"max_grad_norm={self.max_grad_norm:g}.",
            )
