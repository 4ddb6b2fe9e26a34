"""Misuses of the vector utilities (``vector/utils/space_utils.py``, ``shared_memory.py``)."""

from __future__ import annotations

import numpy as np

from tests.errors.cases_spaces import custom_space
from tests.errors.harness import CaseTable

TABLE = CaseTable("vector_utils")
case = TABLE.add


def utils(gym):
    return gym.vector.utils


def _not_a_space_case(function: str, *args):
    def misuse(gym):
        getattr(utils(gym), function)(3, *args)

    misuse.__name__ = f"{function}_of_a_non_space"
    return misuse


def _custom_space_case(function: str, *args):
    def misuse(gym):
        getattr(utils(gym), function)(custom_space(gym), *args)

    misuse.__name__ = f"{function}_of_a_custom_space"
    return misuse


for _function, _args in (
    ("batch_space", (2,)),
    ("iterate", ([1, 2],)),
    ("concatenate", ([1, 2], None)),
    ("create_empty_array", (2,)),
    ("create_shared_memory", (2,)),
    ("read_from_shared_memory", (None, 2)),
    ("write_to_shared_memory", (0, 1, None)),
):
    case(_not_a_space_case(_function, *_args))

for _function, _args in (
    ("iterate", ([1, 2],)),
    ("create_shared_memory", (2,)),
    ("read_from_shared_memory", (None, 2)),
    ("write_to_shared_memory", (0, 1, None)),
):
    case(_custom_space_case(_function, *_args))


@case
def create_shared_memory_of_a_sequence(gym):
    utils(gym).create_shared_memory(gym.spaces.Sequence(gym.spaces.Discrete(2)), 2)


@case
def iterate_a_discrete(gym):
    utils(gym).iterate(gym.spaces.Discrete(2), [0, 1])


@case
def iterate_a_box_over_a_scalar(gym):
    utils(gym).iterate(gym.spaces.Box(0, 1, (2,)), 3)


@case
def iterate_a_tuple_of_custom_spaces_over_a_scalar(gym):
    space = gym.spaces.Tuple((custom_space(gym), gym.spaces.Discrete(2)))
    list(utils(gym).iterate(space, 3))


# ---- batch_differing_spaces ------------------------------------------------------------------
def differing(gym, *spaces):
    return utils(gym).batch_differing_spaces(list(spaces))


@case
def batch_differing_of_no_spaces(gym):
    differing(gym)


@case
def batch_differing_of_mixed_types(gym):
    differing(gym, gym.spaces.Discrete(2), gym.spaces.MultiBinary(2))


@case
def batch_differing_of_custom_spaces(gym):
    space = custom_space(gym)
    differing(gym, space, space)


@case
def batch_differing_boxes_of_different_dtypes(gym):
    s = gym.spaces
    differing(gym, s.Box(0, 1, (2,), np.float32), s.Box(0, 1, (2,), np.float64))


@case
def batch_differing_boxes_of_different_shapes(gym):
    differing(gym, gym.spaces.Box(0, 1, (2,)), gym.spaces.Box(0, 1, (3,)))


@case
def batch_differing_boxes_of_different_high_shapes(gym):
    space = gym.spaces.Box(0, 1, (2,))
    space.high = np.ones(3, np.float32)
    differing(gym, gym.spaces.Box(0, 1, (2,)), space)


@case
def batch_differing_multi_discretes_of_different_dtypes(gym):
    s = gym.spaces
    differing(gym, s.MultiDiscrete([2], dtype=np.int32), s.MultiDiscrete([2], dtype=np.int64))


@case
def batch_differing_multi_discretes_of_different_shapes(gym):
    differing(gym, gym.spaces.MultiDiscrete([2]), gym.spaces.MultiDiscrete([2, 3]))


@case
def batch_differing_multi_discretes_of_different_start_shapes(gym):
    space = gym.spaces.MultiDiscrete([2])
    space.start = np.zeros(2, np.int64)
    differing(gym, gym.spaces.MultiDiscrete([2]), space)


@case
def batch_differing_multi_binaries_of_different_shapes(gym):
    differing(gym, gym.spaces.MultiBinary(2), gym.spaces.MultiBinary(3))


@case
def batch_differing_dicts_of_different_keys(gym):
    s = gym.spaces
    differing(gym, s.Dict(a=s.Discrete(2)), s.Dict(b=s.Discrete(2)))
