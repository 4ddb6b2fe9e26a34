"""Choosing the gradient backend under an algorithm's loss, and saying which and why.

Every algorithm defines its loss once, for autograd (e.g. :meth:`PPO.loss
<palaestra.train.ppo.PPO.loss>`). Some also ship a hand-written backend that computes the
same gradients without autograd's graph (faster on small networks). A backend may only
stand in for the loss it was derived from, so it is used only when all of these hold:
the agent's class does not override the loss methods, the policy is the shipped network
the backend was written for, and device, dtype and torch release fit. Otherwise training
goes through autograd on the loss. The choice is made once per agent, logged once
(``palaestra.logger.info``) and kept as the agent's ``backend`` and ``backend_reason``
(``palaestra train`` writes both to ``summary.json``).

Example:
    >>> choice = choose_backend("hand-written", ["the policy is custom"], wanted=None)
    >>> choice.name, choice.reason
    ('autograd', 'the hand-written backend was declined: the policy is custom')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from palaestra import logger

AUTOGRAD = "autograd"
"""The backend name of plain autograd on the algorithm's loss."""


@dataclasses.dataclass(frozen=True)
class BackendChoice:
    """Which backend computes an agent's gradients, and why.

    Attributes:
        name: ``"autograd"`` or the backend's name (``"compiled"``, ``"hand-written"``).
        reason: one sentence on why it was chosen or why the backend was declined.

    Example:
        >>> BackendChoice("autograd", "fast_path=False was asked").name
        'autograd'
    """

    name: str
    reason: str


def overridden_methods(agent: object, base: type, methods: Iterable[str]) -> list[str]:
    """Names of ``methods`` that ``type(agent)`` defines differently from ``base``.

    Example:
        >>> class Base:
        ...     def loss(self): ...
        >>> class Mine(Base):
        ...     def loss(self): ...
        >>> overridden_methods(Mine(), Base, ["loss"])
        ['loss']
    """
    cls = type(agent)
    return [name for name in methods if getattr(cls, name) is not getattr(base, name)]


def choose_backend(backend: str, blockers: Iterable[str], wanted: bool | None) -> BackendChoice:
    """Choose ``backend`` or autograd.

    Args:
        backend: the name of the hand-written backend that would apply.
        blockers: the reasons it does not apply (empty when it does).
        wanted: ``None``: the backend wherever it applies; ``True``: demand it (an error
            where it does not apply); ``False``: autograd.

    Raises:
        ValueError: for ``wanted=True`` where the backend does not apply, naming why.

    Example:
        >>> choose_backend("compiled", [], wanted=None).name
        'compiled'
        >>> choose_backend("compiled", [], wanted=False).reason
        'fast_path=False asks for autograd'
    """
    reasons = list(blockers)
    if wanted is False:
        return BackendChoice(AUTOGRAD, "fast_path=False asks for autograd")
    if reasons:
        if wanted:
            raise ValueError(f"fast_path=True does not apply here: {'; '.join(reasons)}.")
        return BackendChoice(AUTOGRAD, f"the {backend} backend was declined: {'; '.join(reasons)}")
    return BackendChoice(
        backend, "the class's own loss on the shipped network and a device it runs on"
    )


def announce(algorithm: str, choice: BackendChoice) -> None:
    """Log the choice once, as one line (shown at ``logger.INFO``).

    Example:
        >>> from palaestra import logger
        >>> logger.set_level(logger.INFO)
        >>> announce("PPO", BackendChoice("autograd", "fast_path=False asks for autograd"))
        INFO: PPO trains with the autograd backend: fast_path=False asks for autograd.
        >>> logger.set_level(logger.WARN)
    """
    logger.info("%s trains with the %s backend: %s.", algorithm, choice.name, choice.reason)
