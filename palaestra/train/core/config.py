"""The hyper-parameters every trainer shares, documented and validated once.

:class:`CommonConfig` holds the fields that PPO, DQN and SAC (and any algorithm built on
:class:`palaestra.train.core.agent.Agent`) have in common; an algorithm's config is a
dataclass that extends it with its own fields (and may give a shared field another
default by declaring it again). :meth:`CommonConfig.__post_init__` validates the shared
fields and every name in the ``positive_ints`` and ``positive_numbers`` of the config's
class and its bases, so a subclass lists only its own new fields there.

Example:
    >>> import dataclasses
    >>> @dataclasses.dataclass
    ... class MyConfig(CommonConfig):
    ...     positive_ints = ("rollout",)
    ...     rollout: int = 5
    >>> MyConfig(rollout=0)
    Traceback (most recent call last):
    ...
    ValueError: MyConfig.rollout must be a positive int, got 0.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar


@dataclasses.dataclass
class CommonConfig:
    """The hyper-parameters shared by the trainers (each algorithm's config extends it).

    Attributes:
        num_envs: sub-envs stepped together.
        learning_rate: Adam step size (at the start of training, where it is annealed).
        batch_size: transitions (or rollout steps) per gradient step.
        gamma: discount factor, in ``[0, 1]``.
        hidden_sizes: hidden widths of the networks (``None``: the policy's default,
            where the algorithm builds policies that have one).
        fast_path: the hand-written gradient backend under the algorithm's loss:
            ``None`` (or ``True`` for the off-policy trainers) takes it wherever it applies
            (the class's own loss, the shipped network, a device and dtype it runs on),
            ``False`` always trains with autograd; PPO's ``True`` demands it. The agent's
            ``backend`` and ``backend_reason`` say what was chosen and why.
        normalize_observation: wrap the env in ``NormalizeObservation``.
        normalize_reward: wrap the env in ``NormalizeReward``.
        check_finite: stop with :class:`~palaestra.train.diagnostics.NonFiniteError` at the
            first non-finite observation, reward, loss or gradient (on by default).
        seed: seeds torch, NumPy and the env; ``None`` for fresh randomness.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"`` or ``"auto"`` (CUDA when
            available).
        torch_threads: intra-op threads for torch on the CPU.
        window: episodes in the reported rolling mean of returns.
        diagnostics: check every env step (innermost
            :class:`~palaestra.train.diagnostics.DiagnosticsWrapper`) and every update
            (:class:`~palaestra.train.diagnostics.TrainingMonitor`), raising at the first
            problem; slower.
        step_timeout: seconds one env step may take (the env is wrapped to enforce it).

    Raises:
        ValueError: naming the field, its value and what it must be.

    Example:
        >>> CommonConfig().window
        100
        >>> CommonConfig(gamma=1.5)
        Traceback (most recent call last):
        ...
        ValueError: CommonConfig.gamma must be in [0, 1], got 1.5.
    """

    positive_ints: ClassVar[tuple[str, ...]] = ("num_envs", "batch_size", "window")
    """Fields that must be positive ints; a subclass names only its own (its bases' count too)."""
    positive_numbers: ClassVar[tuple[str, ...]] = ()
    """Fields that must be positive numbers (``math.inf`` allowed); as :attr:`positive_ints`."""

    num_envs: int = 1
    learning_rate: float = 3e-4
    batch_size: int = 64
    gamma: float = 0.99
    hidden_sizes: tuple[int, ...] | None = (64, 64)
    fast_path: bool | None = None
    normalize_observation: bool = False
    normalize_reward: bool = False
    check_finite: bool = True
    seed: int | None = 0
    device: str = "cpu"
    torch_threads: int = 1
    window: int = 100
    diagnostics: bool = False
    step_timeout: float | None = None

    def __post_init__(self) -> None:
        name = type(self).__name__
        for field in (*_declared(type(self), "positive_ints"), "torch_threads"):
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name}.{field} must be a positive int, got {value!r}.")
        if not _is_number(self.learning_rate) or not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate!r}.")
        if not _is_number(self.gamma) or not 0.0 <= self.gamma <= 1.0:
            raise ValueError(f"{name}.gamma must be in [0, 1], got {self.gamma!r}.")
        for field in _declared(type(self), "positive_numbers"):
            value = getattr(self, field)
            if not _is_number(value) or not value > 0:
                raise ValueError(f"{name}.{field} must be a positive number, got {value!r}.")
        if self.step_timeout is not None and not (
            _is_number(self.step_timeout) and self.step_timeout > 0
        ):
            raise ValueError(
                f"{name}.step_timeout must be a positive number of seconds or None, got "
                f"{self.step_timeout!r}."
            )
        if self.hidden_sizes is not None:
            sizes = tuple(self.hidden_sizes)
            if not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes):
                raise ValueError(
                    f"{name}.hidden_sizes must be positive ints, got {self.hidden_sizes!r}."
                )
            self.hidden_sizes = sizes


def _declared(cls: type, attribute: str) -> tuple[str, ...]:
    # The names each class of the MRO declares itself, bases first, each once.
    names = (n for klass in reversed(cls.__mro__) for n in vars(klass).get(attribute, ()))
    return tuple(dict.fromkeys(names))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value)
