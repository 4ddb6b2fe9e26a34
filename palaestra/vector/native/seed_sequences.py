"""numpy's seeding of PCG64 from integer seeds, computed for many seeds at once.

``Generator(PCG64(SeedSequence(seed)))`` costs a process about 10-20 microseconds per seed:
at 1,024 sub-environments a first ``reset(seed=...)`` spent 20 ms building Generators only to
read their states. :func:`pcg64_states` computes the same 128-bit states and increments with
a few dozen array operations on all the seeds together: :class:`numpy.random.SeedSequence`'s
hash mixing of the seed's 32-bit words into a pool of four, its ``generate_state`` of four
64-bit words, and PCG64's ``srandom`` (``state = 0``, ``inc = 2 * seq + 1``, step, add the
seed, step). All of it is arithmetic modulo 2**32 (the hash) or 2**128 (the LCG), which
``uint32``/``uint64`` arrays wrap exactly as numpy's C code does.

Example:
    >>> high, low, inc_high, inc_low = pcg64_states([7])
    >>> state = np.random.PCG64(7).state["state"]
    >>> (int(high[0]) << 64 | int(low[0])) == state["state"]
    True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from palaestra.vector.native.pcg64 import pcg64_step

__all__ = ["BATCHED_SEED_LIMIT", "pcg64_states"]

# Seeds below this fit in two 32-bit words; larger ones are seeded one by one.
BATCHED_SEED_LIMIT = 2**64

# numpy's SeedSequence constants (the "hashmix" and "mix" of its pool).
_INIT_A = np.uint32(0x43B0D7E5)
_MULT_A = np.uint32(0x931E8875)
_INIT_B = np.uint32(0x8B51F9DD)
_MULT_B = np.uint32(0x58F38DED)
_MIX_MULT_L = np.uint32(0xCA01F9DD)
_MIX_MULT_R = np.uint32(0x4973F715)
_XSHIFT = np.uint32(16)
_POOL_SIZE = 4
_32 = np.uint64(32)
_1 = np.uint64(1)
_63 = np.uint64(63)


def _hash_constants(start: np.uint32, multiplier: np.uint32, count: int) -> list[np.uint32]:
    """Return the running hash constant after each of ``count`` hashes (the same for all seeds)."""
    constants = []
    value = int(start)
    for _ in range(count):
        value = (value * int(multiplier)) & 0xFFFFFFFF
        constants.append(np.uint32(value))
    return constants


# A pool of four takes 4 hashes of the entropy words and 12 in the mixing rounds (every
# ordered pair of distinct pool words); the constant before each hash is the one a hash xors.
_MIX_CONSTANTS = [_INIT_A, *_hash_constants(_INIT_A, _MULT_A, 16)]
_STATE_CONSTANTS = [_INIT_B, *_hash_constants(_INIT_B, _MULT_B, 8)]


def _hashmix(value: np.ndarray, index: int) -> np.ndarray:
    # value ^= constant; constant *= MULT_A; value *= constant; value ^= value >> 16
    value = value ^ _MIX_CONSTANTS[index]
    value *= _MIX_CONSTANTS[index + 1]
    value ^= value >> _XSHIFT
    return value


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = _MIX_MULT_L * x - _MIX_MULT_R * y
    result ^= result >> _XSHIFT
    return result


def _pool(seeds: np.ndarray) -> list[np.ndarray]:
    """Return SeedSequence(seed).pool for every seed: four ``uint32`` rows."""
    # The seed's little-endian 32-bit words, padded with zeros to the pool size: numpy hashes
    # a zero for each pool word beyond the entropy, the same as a zero word.
    words = [(seeds & np.uint64(0xFFFFFFFF)).astype(np.uint32), (seeds >> _32).astype(np.uint32)]
    words += [np.zeros(len(seeds), dtype=np.uint32)] * (_POOL_SIZE - len(words))
    hashes = 0
    mixer = []
    for word in words:
        mixer.append(_hashmix(word, hashes))
        hashes += 1
    for source in range(_POOL_SIZE):
        for target in range(_POOL_SIZE):
            if source != target:
                mixer[target] = _mix(mixer[target], _hashmix(mixer[source], hashes))
                hashes += 1
    return mixer


def _generate_words(pool: list[np.ndarray]) -> list[np.ndarray]:
    """Return ``generate_state(4, uint64)``: four ``uint64`` rows from eight 32-bit words."""
    words = []
    for index in range(8):
        value = pool[index % _POOL_SIZE] ^ _STATE_CONSTANTS[index]
        value *= _STATE_CONSTANTS[index + 1]
        value ^= value >> _XSHIFT
        words.append(value.astype(np.uint64))
    return [words[2 * k] | (words[2 * k + 1] << _32) for k in range(4)]


def pcg64_states(
    seeds: Sequence[int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the states of ``PCG64(SeedSequence(seed))`` for each seed, as ``uint64`` halves.

    Args:
        seeds: integers in ``[0, BATCHED_SEED_LIMIT)``.

    Returns:
        ``(state_high, state_low, inc_high, inc_low)``, one entry per seed: the halves of
        ``PCG64(seed).state["state"]["state"]`` and ``["inc"]``.

    Raises:
        ValueError: for a seed outside ``[0, BATCHED_SEED_LIMIT)``.

    Example:
        >>> halves = pcg64_states([0, 1, 2**40])
        >>> [int(h) << 64 | int(lo) for h, lo in zip(halves[2], halves[3])] == [
        ...     np.random.PCG64(s).state["state"]["inc"] for s in (0, 1, 2**40)]
        True
    """
    if any(not 0 <= seed < BATCHED_SEED_LIMIT for seed in seeds):
        raise ValueError(
            f"pcg64_states takes seeds in [0, 2**64), got {list(seeds)!r}; seed larger ones "
            "with numpy.random.PCG64 one by one."
        )
    with np.errstate(over="ignore"):
        seed_high, seed_low, sequence_high, sequence_low = _generate_words(
            _pool(np.array(seeds, dtype=np.uint64))
        )
        # srandom: inc = (sequence << 1) | 1 over 128 bits.
        inc_high = (sequence_high << _1) | (sequence_low >> _63)
        inc_low = (sequence_low << _1) | _1
        # state = 0, step (state = inc), add the seed, step.
        low = inc_low + seed_low
        high = inc_high + seed_high + (low < inc_low).astype(np.uint64)
        high, low = pcg64_step(high, low, inc_high, inc_low)
    return high, low, inc_high, inc_low
