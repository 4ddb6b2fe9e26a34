"""What every trainer does before it trains: its config, device, seeds and env id.

Example:
    >>> from palaestra.train.ppo import PPOConfig
    >>> resolve_config(PPOConfig, "ppo", "CartPole-v1", None, {"seed": 3}).n_steps
    32
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.presets import preset

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()


def resolve_device(device: str) -> Any:
    """Turn ``"auto"`` into CUDA when available (else CPU) and validate the rest.

    Args:
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"`` or ``"auto"``.

    Returns:
        The ``torch.device``.

    Raises:
        ValueError: for an unknown device name, or CUDA requested but not available.

    Example:
        >>> resolve_device("cpu")
        device(type='cpu')
        >>> resolve_device("tpu")
        Traceback (most recent call last):
        ...
        ValueError: Unknown device 'tpu'; use 'cpu', 'cuda', 'cuda:N', 'mps' or 'auto'.
    """
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    unknown = f"Unknown device {device!r}; use 'cpu', 'cuda', 'cuda:N', 'mps' or 'auto'."
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(unknown) from None
    if resolved.type not in ("cpu", "cuda", "mps"):
        raise ValueError(unknown)
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} was requested but CUDA is not available; use device='cpu'."
        )
    if resolved.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device={device!r} was requested but MPS is not available; use 'cpu'.")
    return resolved


def seed_everything(seed: int | None) -> None:
    """Seed Python-side randomness used in training: torch and NumPy's global generator.

    Args:
        seed: the seed; ``None`` leaves the generators as they are.

    Example:
        >>> seed_everything(3)
        >>> torch.rand(1).item() == (seed_everything(3) or torch.rand(1).item())
        True
    """
    if seed is None:
        return
    torch.manual_seed(seed)
    np.random.seed(seed % 2**32)


def resolve_config(
    config_class: type, algo: str, env: Any, config: Any, hyper_parameters: dict[str, Any]
) -> Any:
    """Return the config an algorithm trains with: the env's preset, or ``config``, plus overrides.

    Args:
        config_class: the algorithm's config dataclass.
        algo: the algorithm's registered name (``"ppo"``, ``"dqn"``, ...).
        env: an env id or env (its spec id picks the preset).
        config: an explicit config, used instead of the preset when given.
        hyper_parameters: field overrides.

    Raises:
        TypeError: naming unknown hyper-parameters and the valid ones.

    Example:
        >>> from palaestra.train.dqn import DQNConfig
        >>> resolve_config(DQNConfig, "dqn", "CartPole-v1", None, {}).batch_size
        64
    """
    fields = {field.name for field in dataclasses.fields(config_class)}
    unknown = sorted(set(hyper_parameters) - fields)
    if unknown:
        raise TypeError(
            f"Unknown {config_class.__name__} hyper-parameters {unknown}; valid ones: "
            f"{sorted(fields)}."
        )
    if config is not None:
        return dataclasses.replace(config, **hyper_parameters)
    env_id = env if isinstance(env, str) else env_id_of(env)
    base = preset(env_id, algo).config if env_id is not None else {}
    values = {key: value for key, value in base.items() if key in fields}
    values.update(hyper_parameters)
    return config_class(**values)


def config_from_state(config_class: type, values: dict[str, Any]) -> Any:
    """Rebuild a config from saved data, ignoring fields this version does not know.

    Example:
        >>> from palaestra.train.dqn import DQNConfig
        >>> config_from_state(DQNConfig, {"hidden_sizes": [8], "gone": 1}).hidden_sizes
        (8,)
    """
    known = {field.name for field in dataclasses.fields(config_class)}
    kept = {key: value for key, value in values.items() if key in known}
    if isinstance(kept.get("hidden_sizes"), list):
        kept["hidden_sizes"] = tuple(kept["hidden_sizes"])
    return config_class(**kept)


def env_id_of(env: Any) -> str | None:
    """Return the registered id of an env (its spec's), or ``None``.

    Example:
        >>> import palaestra as gym
        >>> env_id_of(gym.make("CartPole-v1")), env_id_of(object())
        ('CartPole-v1', None)
    """
    spec = getattr(env, "spec", None)
    return getattr(spec, "id", None)


def progress_bar(total: int) -> Any:
    """Return a tqdm bar over ``total`` env steps, or ``None`` when tqdm is not installed.

    Example:
        >>> bar = progress_bar(10)
        >>> bar is None or bar.total == 10
        True
    """
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="step", dynamic_ncols=True)


def asks_to_stop(answer: Any) -> bool:
    """Whether a callback's answer stops training (``False``; ``None`` continues).

    Example:
        >>> asks_to_stop(None), asks_to_stop(False), asks_to_stop(True)
        (False, True, False)
    """
    return answer is not None and not answer
