"""Optimiser helpers shared by the trainers: Adam, gradient clipping, flat gradients.

A few of these run torch's private kernels (``torch._fused_adam_``, ``torch._foreach_*``)
because on small networks the public calls cost more Python than arithmetic. They are
used only on the torch releases this version was tested with
(:data:`TESTED_TORCH`, checked by :func:`private_torch_apis`); on any other release each
helper takes the public call that computes the same thing.

Example:
    >>> p = torch.nn.Parameter(torch.zeros(2)); p.grad = torch.tensor([3.0, 4.0])
    >>> float(clip_grad_norm([p], 1.0))
    5.0
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._torch import require_torch

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()

TESTED_TORCH = ((2, 1), (2, 15))
"""The torch releases (from, up to but excluding) whose private kernels these helpers
call; ``pyproject.toml`` bounds the dependency to the same range."""


def torch_version(version: str | None = None) -> tuple[int, int]:
    """``(major, minor)`` of a torch version string (default: the installed torch's).

    Example:
        >>> torch_version("2.13.0+cpu")
        (2, 13)
    """
    text = torch.__version__ if version is None else version
    major, minor = text.split("+")[0].split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


@functools.cache
def private_torch_apis() -> bool:
    """Whether the installed torch is a tested release that has the private kernels used here.

    Example:
        >>> private_torch_apis() == (TESTED_TORCH[0] <= torch_version() < TESTED_TORCH[1])
        True
    """
    low, high = TESTED_TORCH
    names = ("_fused_adam_", "_foreach_norm", "_foreach_mul_", "_foreach_lerp_", "_foreach_copy_")
    return low <= torch_version() < high and all(hasattr(torch, name) for name in names)


def make_adam(parameters: list[Any], learning_rate: float, device: Any, eps: float = 1e-8) -> Any:
    """Return a ``torch.optim.Adam``, fused where torch has the fused kernel for ``device``.

    Example:
        >>> make_adam([torch.nn.Parameter(torch.ones(1))], 0.1, torch.device("cpu")).defaults["lr"]
        0.1
    """
    fused = device.type in ("cpu", "cuda")
    return torch.optim.Adam(parameters, lr=learning_rate, eps=eps, fused=fused)


def polyak_update(source: list[Any], target: list[Any], tau: float) -> None:
    """``target <- (1 - tau) * target + tau * source``, for lists of tensors, in place.

    Example:
        >>> a, b = [torch.ones(2)], [torch.zeros(2)]
        >>> polyak_update(a, b, 0.25)
        >>> b[0].tolist()
        [0.25, 0.25]
    """
    with torch.no_grad():
        if not private_torch_apis():
            for to, src in zip(target, source):
                to.copy_(src) if tau == 1.0 else to.lerp_(src, tau)
        elif tau == 1.0:
            torch._foreach_copy_(target, source)
        else:
            torch._foreach_lerp_(target, source, tau)


def clip_grad_norm(parameters: list[Any], max_norm: float) -> Any:
    """Clip gradients to a global L2 norm of ``max_norm``; return the norm before clipping.

    Example:
        >>> p = torch.nn.Parameter(torch.zeros(2)); p.grad = torch.tensor([3.0, 4.0])
        >>> float(clip_grad_norm([p], 1.0)), [round(g, 3) for g in p.grad.tolist()]
        (5.0, [0.6, 0.8])
    """
    grads = [p.grad for p in parameters if p.grad is not None]
    if not private_torch_apis():
        return torch.nn.utils.clip_grad_norm_(parameters, max_norm, foreach=False)
    total = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))
    if math.isfinite(max_norm):
        torch._foreach_mul_(grads, (max_norm / (total + 1e-6)).clamp(max=1.0))
    return total


def flat_grads(parameters: list[Any]) -> tuple[Any, list[Any]]:
    """Return a zeroed flat gradient buffer for ``parameters`` and a view shaped like each.

    Hand-written gradients are written into the views, so the whole set is measured or
    scaled with one operation on the flat buffer; :func:`bind_grads` makes the views the
    parameters' ``.grad``.

    Example:
        >>> params = [torch.nn.Parameter(torch.ones(2, 3)), torch.nn.Parameter(torch.ones(3))]
        >>> flat, grads = flat_grads(params)
        >>> tuple(flat.shape), [tuple(g.shape) for g in grads]
        ((9,), [(2, 3), (3,)])
    """
    first = parameters[0]
    flat = torch.zeros(sum(p.numel() for p in parameters), dtype=first.dtype, device=first.device)
    grads, offset = [], 0
    for p in parameters:
        grads.append(flat[offset : offset + p.numel()].view_as(p))
        offset += p.numel()
    return flat, grads


def bind_grads(parameters: list[Any], grads: list[Any]) -> None:
    """Make each ``grads[i]`` the ``.grad`` of ``parameters[i]`` (where it is not already).

    Example:
        >>> p = torch.nn.Parameter(torch.ones(2))
        >>> _, grads = flat_grads([p])
        >>> bind_grads([p], grads)
        >>> p.grad is grads[0]
        True
    """
    for p, grad in zip(parameters, grads):
        if p.grad is not grad:
            p.grad = grad


class AdamStep:
    """``optimizer.step()`` of a fused ``torch.optim.Adam``, without its per-call Python work.

    The state is created as the optimizer's first step would create it; each call bumps the step
    counters and runs the same fused Adam kernel that ``Adam.step`` runs, on cached lists
    of parameters and moments (re-read when the optimizer's state is replaced, e.g. by
    ``load_state_dict``); the per-parameter step counters are made views of one tensor,
    bumped with one add. Anything else (a non-fused optimizer, several parameter groups,
    AMSGrad, ``maximize``, mixed devices or dtypes, a missing gradient) goes through
    ``optimizer.step()``, as does every step on a torch release outside :data:`TESTED_TORCH`.
    The result is bit-for-bit the same as ``optimizer.step()``.

    Args:
        optimizer: the optimizer to step.

    Example:
        >>> p = torch.nn.Parameter(torch.ones(2))
        >>> step = AdamStep(torch.optim.Adam([p], lr=0.1, fused=True))
        >>> for _ in range(2):
        ...     p.grad = torch.ones(2)
        ...     step()
        >>> [round(v, 4) for v in p.detach().tolist()]
        [0.8, 0.8]
    """

    def __init__(self, optimizer: Any):
        self.optimizer = optimizer
        self._lists: tuple[Any, ...] | None = None
        self._state: Any = None

    def _supported(self) -> bool:
        groups = self.optimizer.param_groups
        if not isinstance(self.optimizer, torch.optim.Adam) or len(groups) != 1:
            return False
        group = groups[0]
        return bool(group.get("fused")) and not (
            group["amsgrad"]
            or group["maximize"]
            or group.get("capturable")
            or group.get("differentiable")
            or group.get("decoupled_weight_decay")
        )

    def _build(self) -> tuple[Any, ...] | None:
        params = self.optimizer.param_groups[0]["params"]
        state = self.optimizer.state
        if self._supported() and not state and all(p.grad is not None for p in params):
            # A fresh Adam: create the state its first step would (fused: float32 step
            # counters on the parameter's device), so that step is not taken by
            # `optimizer.step()`, whose every call imports torch._dynamo (~2 s the first
            # time; palaestra/train/_dynamo_free.py).
            for p in params:
                state[p] = {
                    "step": torch.zeros((), dtype=torch.float32, device=p.device),
                    "exp_avg": torch.zeros_like(p, memory_format=torch.preserve_format),
                    "exp_avg_sq": torch.zeros_like(p, memory_format=torch.preserve_format),
                }
        if not self._supported() or not all(p in state and "exp_avg" in state[p] for p in params):
            return None
        kinds = {(p.device, p.dtype) for p in params}
        steps = [state[p]["step"] for p in params]
        if len(kinds) != 1 or len({(s.device, s.dtype, s.shape) for s in steps}) != 1:
            return None
        # The step counters become views of one tensor, so one add bumps them all
        # (``_foreach_add_`` on 0-d CPU tensors runs a slow per-tensor path).
        counters = torch.stack([s.detach() for s in steps])
        for index, p in enumerate(params):
            state[p]["step"] = counters[index]
        return (
            list(params),
            [state[p]["exp_avg"] for p in params],
            [state[p]["exp_avg_sq"] for p in params],
            [state[p]["step"] for p in params],
            # On the CPU a NumPy add on a view bumps them without a torch call (~5 us less).
            counters.numpy() if counters.device.type == "cpu" else counters,
        )

    def __call__(self) -> None:
        """Take one Adam step with the gradients in each parameter's ``.grad``."""
        if not private_torch_apis():
            self.optimizer.step()
            return
        if self._lists is None or self._state is not self.optimizer.state:
            self._lists = self._build()
            self._state = self.optimizer.state
        if self._lists is None:
            self.optimizer.step()
            return
        params, exp_avgs, exp_avg_sqs, steps, counters = self._lists
        grads = [p.grad for p in params]
        if any(g is None for g in grads):
            self.optimizer.step()
            return
        group = self.optimizer.param_groups[0]
        beta1, beta2 = group["betas"]
        with torch.no_grad():
            counters += 1
            torch._fused_adam_(
                params,
                grads,
                exp_avgs,
                exp_avg_sqs,
                [],
                steps,
                amsgrad=False,
                lr=group["lr"],
                beta1=beta1,
                beta2=beta2,
                weight_decay=group["weight_decay"],
                eps=group["eps"],
                maximize=False,
                grad_scale=None,
                found_inf=None,
            )


class FlatGradients:
    """Every parameter's ``.grad`` as a view of one flat CPU float32 buffer.

    Zeroing all gradients is then one fill and clipping their global L2 norm one ``np.dot``
    and at most one multiply (instead of a norm per tensor, a stack and a multiply per
    tensor). Autograd accumulates into an existing ``.grad`` in place, so a ``backward``
    after :meth:`zero` leaves exactly the gradients it would have stored in fresh tensors.
    Use it only where every parameter receives a gradient: a parameter the loss does not
    reach keeps a zero gradient instead of ``None`` (which Adam would skip).

    Args:
        parameters: CPU float32 tensors.

    Raises:
        ValueError: for parameters on another device or of another dtype.

    Example:
        >>> w = torch.nn.Parameter(torch.tensor([3.0, 4.0]))
        >>> grads = FlatGradients([w])
        >>> grads.zero()
        >>> (w * w).sum().backward()
        >>> grads.clip(5.0), w.grad.tolist()
        (10.0, [3.0, 4.0])
    """

    def __init__(self, parameters: list[torch.Tensor]):
        self.parameters = list(parameters)
        for p in self.parameters:
            if p.device.type != "cpu" or p.dtype != torch.float32:
                raise ValueError(
                    f"FlatGradients needs CPU float32 parameters, got {p.dtype} on {p.device}."
                )
        total = sum(p.numel() for p in self.parameters)
        self.flat = torch.zeros(total, dtype=torch.float32)
        self._flat = self.flat.numpy()
        self.views: list[torch.Tensor] = []
        offset = 0
        for p in self.parameters:
            self.views.append(self.flat[offset : offset + p.numel()].view(p.shape))
            offset += p.numel()

    def attach(self) -> None:
        """Make every ``.grad`` its view again (after e.g. ``zero_grad(set_to_none=True)``)."""
        for p, view in zip(self.parameters, self.views):
            if p.grad is not view:
                p.grad = view

    def zero(self) -> None:
        """Attach the views and set every gradient to zero."""
        self.attach()
        self._flat.fill(0.0)

    def clip(self, max_norm: float) -> float:
        """Scale all gradients so their global L2 norm is at most ``max_norm``; return the norm.

        The norm is the one before clipping (NaN or infinity when a gradient is not finite;
        the gradients are then left as they are).
        """
        norm = math.sqrt(float(np.dot(self._flat, self._flat)))
        factor = max_norm / (norm + 1e-6)
        if factor < 1.0:
            self._flat *= np.float32(factor)
        return norm
