"""numpy's PCG64 bit generator, stepped for many generators at once.

A natively batched environment owns one PCG64 stream per sub-environment (for seeding
parity with a sync vector env). Drawing from thousands of :class:`numpy.random.Generator`
objects one by one costs microseconds each; here the 128-bit states of all of them sit in
``uint64`` arrays (high and low halves) and one draw advances every selected stream with a
handful of array operations. The arithmetic is numpy's PCG64 exactly: the LCG
``state = state * multiplier + increment (mod 2**128)`` followed by the XSL-RR output, and
doubles as ``(next64 >> 11) * 2**-53``, so the draws equal the Generators' bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "pcg64_step",
    "pcg64_output",
    "next_double",
    "split_state",
    "join_state",
    "jump_constants",
    "multiply_128",
    "doubles_after_jumps",
]

_MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645
_MULTIPLIER_HIGH = np.uint64(_MULTIPLIER >> 64)
_MULTIPLIER_LOW = np.uint64(_MULTIPLIER & (2**64 - 1))
_LOW_32 = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)
_58 = np.uint64(58)
_63 = np.uint64(63)
_64 = np.uint64(64)
_11 = np.uint64(11)
_DOUBLE_UNIT = 1.0 / 9007199254740992.0


def _multiply_wide(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return the high and low 64 bits of the 128-bit products ``a * b`` (broadcast).

    The low half is the wrapped 64-bit product; the high half adds up the high bits of the
    32-bit pieces' products, in place on the fresh temporaries (no new array per term: the
    batch of jumps is a ``(count, num_envs)`` table).
    """
    a_low, a_high = a & _LOW_32, a >> _32
    b_low, b_high = b & _LOW_32, b >> _32
    cross_1 = a_low * b_high
    cross_2 = a_high * b_low
    middle = a_low * b_low
    middle >>= _32
    middle += cross_1 & _LOW_32
    middle += cross_2 & _LOW_32
    middle >>= _32
    high = a_high * b_high
    high += middle
    cross_1 >>= _32
    high += cross_1
    cross_2 >>= _32
    high += cross_2
    return high, a * b


def pcg64_step(
    high: np.ndarray, low: np.ndarray, inc_high: np.ndarray, inc_low: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Advance 128-bit LCG states (given as high/low ``uint64`` halves) by one step.

    Example:
        >>> one = np.array([1], dtype=np.uint64)
        >>> high, low = pcg64_step(np.zeros(1, np.uint64), one, np.zeros(1, np.uint64), one)
        >>> join_state(high, low)[0] == 0x2360ED051FC65DA44385DF649FCCF645 + 1
        True
    """
    product_high, product_low = _multiply_wide(low, _MULTIPLIER_LOW)
    product_high = product_high + low * _MULTIPLIER_HIGH + high * _MULTIPLIER_LOW
    new_low = product_low + inc_low
    carry = np.uint64(new_low < product_low)
    return product_high + inc_high + carry, new_low


def pcg64_output(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """Return the XSL-RR output: the halves xored, rotated right by the top six bits.

    Example:
        >>> pcg64_output(np.array([0], np.uint64), np.array([5], np.uint64)).tolist()
        [5]
    """
    rotation = high >> _58
    mixed = high ^ low
    return (mixed >> rotation) | (mixed << ((_64 - rotation) & _63))


def next_double(
    high: np.ndarray, low: np.ndarray, inc_high: np.ndarray, inc_low: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step the states and return ``(doubles in [0, 1), new high, new low)``.

    Example:
        >>> gen = np.random.Generator(np.random.PCG64(7))
        >>> state = split_state([gen.bit_generator.state["state"]])
        >>> value, *_ = next_double(*state)
        >>> float(value[0]) == np.random.Generator(np.random.PCG64(7)).random()
        True
    """
    high, low = pcg64_step(high, low, inc_high, inc_low)
    return (pcg64_output(high, low) >> _11) * _DOUBLE_UNIT, high, low


def jump_constants(count: int) -> tuple[list[int], list[int]]:
    """Return the constants that advance an LCG state by ``j = 1..count`` steps at once.

    ``j`` steps of ``s -> a * s + c`` give ``a**j * s + c * (1 + a + ... + a**(j-1))``
    (mod 2**128): the multipliers ``a**j`` and the factors of the increment are returned.

    Example:
        >>> multipliers, factors = jump_constants(2)
        >>> multipliers[0] == _MULTIPLIER, factors == [1, 1 + _MULTIPLIER]
        (True, True)
    """
    mask = 2**128 - 1
    multipliers, factors = [], []
    power, total = 1, 0
    for _ in range(count):
        total = (total + power) & mask
        power = (power * _MULTIPLIER) & mask
        multipliers.append(power)
        factors.append(total)
    return multipliers, factors


def multiply_128(
    high: np.ndarray, low: np.ndarray, other_high: np.ndarray, other_low: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Return the product of two 128-bit numbers (as ``uint64`` halves) modulo 2**128.

    The halves broadcast against each other, so a column of constants times a row of
    states gives a table of products (the long axis last keeps numpy's inner loops long).

    Example:
        >>> x, y = 2**100 + 3, 2**127 + 2**63 + 5
        >>> halves = lambda n: split_state([{"state": n, "inc": 0}])[:2]
        >>> join_state(*multiply_128(*halves(x), *halves(y)))[0] == x * y % 2**128
        True
    """
    product_high, product_low = _multiply_wide(low, other_low)
    product_high += low * other_high
    product_high += high * other_low
    return product_high, product_low


def doubles_after_jumps(
    high: np.ndarray,
    low: np.ndarray,
    multipliers: tuple[np.ndarray, np.ndarray],
    increments: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw ``count`` doubles from each of ``k`` streams in one pass over a ``(count, k)`` table.

    Row ``j`` holds the states ``j + 1`` steps ahead, reached in one jump (see
    :func:`jump_constants`) rather than ``j + 1`` sequential steps: a few operations on one
    table instead of a few dozen per row. The streams run along the last axis, so that each
    operation is one long loop over them (not ``k`` loops of ``count``).

    Args:
        high: the high halves of the streams' states, shape ``(k,)``.
        low: their low halves, shape ``(k,)``.
        multipliers: halves of ``a**j``, shape ``(count, 1)``.
        increments: halves of each stream's increment times the factor of ``j``,
            shape ``(count, k)``.

    Returns:
        The doubles ``(count, k)`` and the halves of the streams' last states, ``(k,)``.

    Example:
        >>> gen = np.random.Generator(np.random.PCG64(7))
        >>> state = split_state([gen.bit_generator.state["state"]])
        >>> multipliers, factors = jump_constants(3)
        >>> table = lambda values: split_state([{"state": v, "inc": 0} for v in values])[:2]
        >>> increments = multiply_128(state[2], state[3], *(t[:, None] for t in table(factors)))
        >>> a_high, a_low = table(multipliers)
        >>> doubles, *_ = doubles_after_jumps(
        ...     state[0], state[1], (a_high[:, None], a_low[:, None]), increments)
        >>> doubles[:, 0].tolist() == gen.random(3).tolist()
        True
    """
    jumped_high, jumped_low = multiply_128(high, low, *multipliers)
    increment_high, increment_low = increments
    jumped_low += increment_low
    jumped_high += increment_high
    # A wrapped low half carries one into the high half.
    jumped_high += jumped_low < increment_low
    doubles = pcg64_output(jumped_high, jumped_low)
    doubles >>= _11
    return doubles * _DOUBLE_UNIT, jumped_high[-1], jumped_low[-1]


def split_state(states: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Turn PCG64 ``{"state": int, "inc": int}`` dicts into four ``uint64`` arrays.

    Example:
        >>> [a.tolist() for a in split_state([{"state": 2**64 + 3, "inc": 5}])]
        [[1], [3], [0], [5]]
    """
    mask = 2**64 - 1
    arrays = (
        [s["state"] >> 64 for s in states],
        [s["state"] & mask for s in states],
        [s["inc"] >> 64 for s in states],
        [s["inc"] & mask for s in states],
    )
    return tuple(np.array(a, dtype=np.uint64) for a in arrays)  # type: ignore[return-value]


def join_state(high: np.ndarray, low: np.ndarray) -> list[int]:
    """Turn ``uint64`` halves back into Python ints.

    Example:
        >>> join_state(np.array([1], np.uint64), np.array([3], np.uint64))
        [18446744073709551619]
    """
    return [(int(h) << 64) | int(lo) for h, lo in zip(high.tolist(), low.tolist(), strict=True)]
