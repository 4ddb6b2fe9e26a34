"""Saving trained agents to disk and loading them back as ready-to-act policies.

A checkpoint is one ``torch.save`` file holding a format marker, the algorithm, the env id,
the hyper-parameters, the network weights (as a state dict), the optimizer state and the
observation/reward normalization statistics. Files are written atomically (a temporary
file in the same folder, then a rename), so a crash never leaves a half-written
checkpoint behind.

Loading is data only: the file is read with ``weights_only=True`` (no pickled code), and
the saved env id is never imported from: a ``module:Env-v0`` id (which would import
``module``) is refused unless the caller passes ``allow_import=True``. A corrupt, truncated
or foreign file raises :class:`CheckpointError` with one line naming the file and what is
wrong.

Example:
    >>> import tempfile, pathlib
    >>> from palaestra.train.ppo import PPO
    >>> agent = PPO("MlpPolicy", "CartPole-v1", num_envs=2, n_steps=4, batch_size=8)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.pt"
    >>> save_agent(agent, path)
    >>> policy = load_policy(path)
    >>> policy.algo, policy.env_id
    ('ppo', 'CartPole-v1')
"""

from __future__ import annotations

import io
import os
import re
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra import error
from palaestra.train._torch import require_torch
from palaestra.train.core import registry as algorithms
from palaestra.train.core.predict import predict_with
from palaestra.train.envs import load_normalization_state

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()

FORMAT = "palaestra-checkpoint"
FORMAT_VERSION = 2
REQUIRED_KEYS = ("algo", "env_id", "config", "model")


class CheckpointError(error.Error):
    """A checkpoint file that cannot be used (missing, corrupt, truncated, foreign) or written.

    Attributes:
        problem: the bare problem (e.g. the first wrong size), without the file's name.

    Example:
        >>> str(CheckpointError("model.pt: truncated"))
        'model.pt: truncated'
    """

    def __init__(self, message: str):
        super().__init__(message)
        self.problem = message


def save_agent(agent: Any, path: str | os.PathLike) -> None:
    """Write ``agent.state()`` to ``path`` atomically (parent folders are created).

    Args:
        agent: a trainer of :mod:`palaestra.train` (PPO, DQN, SAC, REINFORCE).
        path: the file to write.

    Example:
        >>> import tempfile, pathlib
        >>> from palaestra.train.reinforce import Reinforce, ReinforceConfig
        >>> agent = Reinforce("CartPole-v1", ReinforceConfig(hidden_dim=8, print_interval=0))
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "agent.pt"
        >>> save_agent(agent, path)
        >>> load_state(path)["algo"]
        'reinforce'
    """
    state = dict(agent.state())
    state["format"] = FORMAT
    state["format_version"] = FORMAT_VERSION
    state["normalization"] = {
        key: {name: torch.as_tensor(value) for name, value in stats.items()}
        for key, stats in state.get("normalization", {}).items()
    }
    atomic_torch_save(state, path)


def atomic_torch_save(obj: Any, path: str | os.PathLike) -> None:
    """``torch.save`` into a temporary file beside ``path``, then rename it over ``path``.

    Raises:
        CheckpointError: if the file cannot be written (a full disk, no permission): one
            line naming the file, the reason and the free space; ``path`` is untouched.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "x.pt"
        >>> atomic_torch_save({"a": 1}, path)
        >>> sorted(p.name for p in path.parent.iterdir())
        ['x.pt']
    """
    path = Path(path)
    # Serialized in memory first, so a failing disk raises our OSError (named below), not
    # torch's "unexpected pos" from inside its zip writer.
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
        )
    except OSError as exc:
        raise _write_error(path, exc) from None
    try:
        with os.fdopen(handle, "wb") as file:
            _write_file(file, buffer.getbuffer())
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _write_error(path, exc) from None
        raise


def _write_file(file: Any, data: memoryview) -> None:
    file.write(data)


def _write_error(path: Path, exc: OSError) -> CheckpointError:
    """One line naming the file, the system's reason and the free space where it goes."""
    try:
        free = f"{shutil.disk_usage(path.parent).free / 2**20:.1f} MiB free"
    except OSError:
        free = "free space unknown"
    return CheckpointError(
        f"cannot write checkpoint {path}: {exc.strerror or exc} ({free} on "
        f"{path.parent}); free some space or choose another folder, then try again "
        "(the previous file, if any, is untouched)."
    )


def load_state(path: str | os.PathLike) -> dict[str, Any]:
    """Read a checkpoint written by :func:`save_agent`, with normalization stats as NumPy.

    Raises:
        CheckpointError: if ``path`` is missing, not a torch file, truncated, or not a
            palaestra checkpoint (one line naming the file and the problem).

    Example:
        >>> import tempfile, pathlib
        >>> bad = pathlib.Path(tempfile.mkdtemp()) / "model.pt"
        >>> _ = bad.write_bytes(b"not a checkpoint")
        >>> load_state(bad)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        palaestra.train.checkpoint.CheckpointError: ...model.pt is not a readable checkpoint ...
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(
            f"No checkpoint at {str(path)!r}; pass a file written by `palaestra train` "
            "(DIR/model.pt) or by palaestra.train.checkpoint.save_agent."
        )
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # every unreadable file gets the same one-line answer
        raise CheckpointError(
            f"{path} is not a readable checkpoint ({_unreadable(exc)}); retrain, or use "
            "another file from checkpoints/."
        ) from None
    if not isinstance(state, dict):
        raise CheckpointError(
            f"{path} is not a palaestra checkpoint: it holds a {type(state).__name__}, "
            "not a checkpoint dictionary."
        )
    marker = state.get("format", FORMAT)
    missing = [key for key in REQUIRED_KEYS if key not in state]
    if marker != FORMAT or missing:
        raise CheckpointError(
            f"{path} is not a palaestra checkpoint (missing {missing or ['format marker']}); "
            "it may come from another library."
        )
    try:
        state["normalization"] = {
            key: {name: np.asarray(value) for name, value in stats.items()}
            for key, stats in state.get("normalization", {}).items()
        }
    except (AttributeError, TypeError) as exc:
        raise CheckpointError(f"{path} has malformed normalization statistics ({exc}).") from None
    return state


def _unreadable(exc: BaseException) -> str:
    r"""Say why ``torch.load`` refused a file, without torch's ANSI codes or unsafe advice.

    Example:
        >>> _unreadable(RuntimeError("Weights only load failed. \x1b[1mtrust\x1b[0m...\n"
        ...     "WeightsUnpickler error: Unsupported global: GLOBAL os.system was not allowed"))
        'it holds a pickled Python object (os.system), and checkpoints are loaded as data only'
    """
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    if "Weights only load failed" not in text:
        first = text.strip().splitlines()[0][:160] if text.strip() else ""
        return f"corrupt, truncated or not a torch file: {type(exc).__name__}: {first}".rstrip(": ")
    named = re.search(r"Unsupported global: GLOBAL (\S+)", text)
    if named:
        return (
            f"it holds a pickled Python object ({named.group(1)}), and checkpoints are "
            "loaded as data only"
        )
    operand = re.search(r"Unsupported operand \S+", text)
    detail = f" ({operand.group(0).lower()})" if operand else ""
    return f"corrupt, truncated or not a torch file: not a data-only pickle{detail}"


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__


def resolve_env_id(state: dict[str, Any], path: Any, allow_import: bool = False) -> str:
    """Return the registered env id a checkpoint names, without importing anything by default.

    A ``module:Env-v0`` id, or an id that is only registered by importing the module saved
    with it, is refused unless ``allow_import`` is true.

    Raises:
        CheckpointError: naming the id and the flag that allows importing.

    Example:
        >>> resolve_env_id({"env_id": "CartPole-v1"}, "model.pt")
        'CartPole-v1'
        >>> resolve_env_id({"env_id": "evil:CartPole-v1"}, "model.pt")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        palaestra.train.checkpoint.CheckpointError: model.pt names env id 'evil:CartPole-v1'...
    """
    raw = state.get("env_id")
    if not isinstance(raw, str) or not raw:
        raise CheckpointError(f"{path} names no env id; pass the env explicitly.")
    module, env_id = raw.split(":", 1) if ":" in raw else (state.get("env_module"), raw)
    if ":" not in raw and is_registered(env_id):
        return env_id
    if not module:
        raise CheckpointError(f"{path} names env id {raw!r}, which is not registered.")
    if not allow_import:
        raise CheckpointError(
            f"{path} names env id {raw!r}, which would import module {module!r}; nothing "
            "was run. If you trust this file, allow it with --allow-import (Python: "
            "allow_import=True)."
        )
    if not re.fullmatch(r"[A-Za-z_][\w.]*", module):
        raise CheckpointError(f"{path} names an invalid module {module!r}.")
    import importlib

    importlib.import_module(module)
    return env_id


def is_registered(env_id: str) -> bool:
    """Whether ``make(env_id)`` finds ``env_id`` without importing anything.

    Example:
        >>> is_registered("CartPole-v1"), is_registered("CartPole"), is_registered("Nope-v0")
        (True, True, False)
    """
    from palaestra.envs.registration import registry

    if env_id in registry:
        return True
    return "-v" not in env_id and any(key.split("-v")[0] == env_id for key in registry)


class TrainedPolicy:
    """A trained network with its normalization, ready to act (no optimizer, no env).

    Args:
        state: a checkpoint dictionary (see :func:`load_state`).
        action_space: one sub-env's action space.
        observation_space: one sub-env's observation space.
        env_id: the registered env id to make envs with (defaults to the saved one).

    Example:
        >>> import tempfile, pathlib
        >>> from palaestra.train.ppo import PPO
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.pt"
        >>> PPO("MlpPolicy", "CartPole-v1", num_envs=1, n_steps=4, batch_size=4).save(path)
        >>> load_policy(path).predict(np.zeros(4, np.float32)).shape
        ()
    """

    def __init__(
        self,
        state: dict[str, Any],
        action_space: Any,
        observation_space: Any,
        env_id: str | None = None,
    ):
        self.state = state
        self.algo = state["algo"]
        self.env_id = env_id or state["env_id"]
        self.normalization = state["normalization"]
        self.observation_space = observation_space
        self.action_space = action_space
        self.actor = _actor_for(state, observation_space, action_space)

    def predict(self, observations: Any, deterministic: bool = True) -> np.ndarray:
        """Env actions for one observation or a batch (normalized as :meth:`make_env` does)."""
        return predict_with(self.actor, observations, self.observation_space, deterministic)

    def make_env(self, num_envs: int = 1, **kwargs: Any) -> Any:
        """Make a vector env of the trained env id with the saved observation normalization.

        Args:
            num_envs: number of sub-envs.
            **kwargs: passed to :func:`palaestra.make_vec` (e.g. ``render_mode``).
        """
        from palaestra import make_vec

        envs = make_vec(self.env_id, num_envs=num_envs, **kwargs)
        return load_normalization_state(envs, self.normalization, freeze=True)


def _actor_for(state: dict[str, Any], observation_space: Any, action_space: Any) -> Any:
    """``act(batch, deterministic)`` for the saved network of any algorithm.

    The network is first built on torch's ``meta`` device (shapes only, no memory) and
    the saved weights are checked against it, so a config that names sizes the weights do
    not have (``hidden_sizes=[16384, 16384]`` beside 8-unit weights) is refused before
    anything is allocated.
    """
    _build_on_meta(state, observation_space, action_space)
    return _build_actor(state, observation_space, action_space)


def _build_on_meta(state: dict[str, Any], observation_space: Any, action_space: Any) -> None:
    with torch.device("meta"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "for .*: copying from a non-meta parameter")
        _build_actor(state, observation_space, action_space)


def check_weights_fit(state: dict[str, Any], env: Any, path: Any) -> None:
    """Check that a checkpoint's weights fit the network its config describes.

    Nothing is allocated: the network is built on torch's ``meta`` device. The trainers'
    ``load`` call this before building the agent, so a config naming sizes the weights do
    not have is refused before it allocates them.

    Args:
        state: a checkpoint dictionary (see :func:`load_state`).
        env: the env id, single env or vector env the agent will run on.
        path: the checkpoint's file, for the message.

    Raises:
        CheckpointError: naming the file and the first wrong size.

    Example:
        >>> from palaestra.train.dqn import DQN
        >>> state = DQN("MlpPolicy", "CartPole-v1", hidden_sizes=(8,)).state()
        >>> check_weights_fit(state, "CartPole-v1", "model.pt")
        >>> state["config"]["hidden_sizes"] = [16384]
        >>> check_weights_fit(state, "CartPole-v1", "model.pt")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        palaestra.train.checkpoint.CheckpointError: model.pt: checkpoint weights do not fit...
    """
    if isinstance(env, str):
        from palaestra import make

        single = make(env)
        spaces = single.observation_space, single.action_space
        single.close()
    else:
        spaces = (
            getattr(env, "single_observation_space", env.observation_space),
            getattr(env, "single_action_space", env.action_space),
        )
    try:
        _build_on_meta(state, *spaces)
    except CheckpointError as exc:
        failure = CheckpointError(f"{path}: {exc}")
        failure.problem = exc.problem
        raise failure from None


def _build_actor(state: dict[str, Any], observation_space: Any, action_space: Any) -> Any:
    algo = state["algo"]
    config = state["config"]
    try:
        entry = algorithms.get(algo)
    except ValueError:
        raise CheckpointError(f"checkpoint holds an unknown algorithm {algo!r}.") from None
    try:
        return entry.build_actor(state, observation_space, action_space)
    except (RuntimeError, KeyError, TypeError, ValueError) as exc:
        failure = CheckpointError(
            f"checkpoint weights do not fit {algo} on {state.get('env_id')} with "
            f"config {_short(config)}: {_load_problem(exc)}; nothing was allocated."
        )
        failure.problem = _load_problem(exc)
        raise failure from None


def _short(config: Any) -> str:
    return str(config)[:80]


def _load_problem(exc: BaseException) -> str:
    """Return the first wrong size (else missing key) of a ``load_state_dict`` error."""
    lines = str(exc).splitlines()
    if isinstance(exc, RuntimeError) and lines and "loading state_dict" in lines[0]:
        details = [line.strip() for line in lines[1:] if line.strip()]
        # A wrong size says most about the config; missing keys follow from it.
        details.sort(key=lambda line: not line.startswith("size mismatch"))
        if details:
            return details[0].replace("torch.Size([", "(").replace("])", ")").rstrip(".")
    return _one_line(exc)


def load_policy(path: str | os.PathLike, allow_import: bool = False) -> TrainedPolicy:
    """Load a checkpoint as a :class:`TrainedPolicy`.

    Nothing named in the file is imported: the env id must already be registered, unless
    ``allow_import`` lets a ``module:Env-v0`` id import its module.

    Args:
        path: a file written by :func:`save_agent`.
        allow_import: allow importing the module a saved env id names.

    Raises:
        CheckpointError: for a missing, corrupt, truncated or foreign file, or an env id
            that would need an import.

    Example:
        >>> import tempfile, pathlib
        >>> from palaestra.train.ppo import PPO
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.pt"
        >>> save_agent(PPO("MlpPolicy", "CartPole-v1", num_envs=1, n_steps=4, batch_size=4), path)
        >>> policy = load_policy(path)
        >>> policy.predict(np.zeros((3, 4), dtype=np.float32)).shape
        (3,)
    """
    from palaestra import make

    state = load_state(path)
    env_id = resolve_env_id(state, path, allow_import)
    env = make(env_id)
    try:
        try:
            return TrainedPolicy(state, env.action_space, env.observation_space, env_id)
        except CheckpointError as exc:
            raise CheckpointError(f"{path}: {exc}") from None
    finally:
        env.close()


def newest_checkpoint(folder: str | os.PathLike) -> Path | None:
    """Return the checkpoint of ``folder/checkpoints`` with the most env steps, or ``None``.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> (folder / "checkpoints").mkdir()
        >>> for steps in (512, 4096, 1024):
        ...     _ = (folder / "checkpoints" / f"step_{steps}.pt").write_bytes(b"")
        >>> newest_checkpoint(folder).name
        'step_4096.pt'
    """
    found = []
    for candidate in Path(folder, "checkpoints").glob("step_*.pt"):
        match = re.fullmatch(r"step_(\d+)\.pt", candidate.name)
        if match:
            found.append((int(match.group(1)), candidate))
    return max(found)[1] if found else None
