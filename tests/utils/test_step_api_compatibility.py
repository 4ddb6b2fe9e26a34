"""step_api_compatibility converts step results exactly as Gymnasium's module does."""

import copy
import itertools

import numpy as np
import pytest
from gymnasium.utils import step_api_compatibility as reference

from palaestra.utils import step_api_compatibility as ours

FLAGS = list(itertools.product([False, True], repeat=2))
VECTOR_FLAGS = [np.array(pair) for pair in itertools.product([False, True], repeat=2)]


def assert_same_result(ours_result, reference_result):
    assert len(ours_result) == len(reference_result)
    for mine, theirs in zip(ours_result, reference_result):
        if isinstance(theirs, np.ndarray):
            np.testing.assert_array_equal(mine, theirs)
            assert mine.dtype == theirs.dtype
        elif isinstance(theirs, dict):
            assert mine.keys() == theirs.keys()
            for key in theirs:
                np.testing.assert_array_equal(mine[key], theirs[key])
        else:
            assert mine == theirs and type(mine) is type(theirs)


def both(function_name, step_returns, **kwargs):
    return (
        getattr(ours, function_name)(copy.deepcopy(step_returns), **kwargs),
        getattr(reference, function_name)(copy.deepcopy(step_returns), **kwargs),
    )


@pytest.mark.parametrize("done, truncated_key", FLAGS)
def test_old_single_step_becomes_terminated_truncated_as_in_gymnasium(done, truncated_key):
    info = {"TimeLimit.truncated": truncated_key} if truncated_key else {}
    assert_same_result(*both("convert_to_terminated_truncated_step_api", (0, 1.0, done, info)))


@pytest.mark.parametrize("terminated, truncated", FLAGS)
def test_new_single_step_becomes_done_as_in_gymnasium(terminated, truncated):
    assert_same_result(*both("convert_to_done_step_api", (0, 1.0, terminated, truncated, {})))


@pytest.mark.parametrize("dones", VECTOR_FLAGS)
@pytest.mark.parametrize("truncated_key", VECTOR_FLAGS)
def test_old_vector_dict_step_becomes_terminated_truncated_as_in_gymnasium(dones, truncated_key):
    info = {"TimeLimit.truncated": truncated_key, "_TimeLimit.truncated": truncated_key}
    step = (0, np.ones(2), dones, info)
    assert_same_result(*both("convert_to_terminated_truncated_step_api", step, is_vector_env=True))


@pytest.mark.parametrize("dones", VECTOR_FLAGS)
@pytest.mark.parametrize("truncated_key", VECTOR_FLAGS)
def test_old_vector_list_step_becomes_terminated_truncated_as_in_gymnasium(dones, truncated_key):
    infos = [{"TimeLimit.truncated": bool(flag)} if flag else {} for flag in truncated_key]
    step = (0, np.ones(2), dones, infos)
    mine, theirs = both("convert_to_terminated_truncated_step_api", step, is_vector_env=True)
    assert_same_result(mine[:4], theirs[:4])
    assert mine[4] == theirs[4]


@pytest.mark.parametrize("terminated", VECTOR_FLAGS)
@pytest.mark.parametrize("truncated", VECTOR_FLAGS)
@pytest.mark.parametrize("list_infos", [False, True])
def test_new_vector_step_becomes_done_as_in_gymnasium(terminated, truncated, list_infos):
    infos = [{}, {}] if list_infos else {}
    step = (0, np.ones(2), terminated, truncated, infos)
    mine, theirs = both("convert_to_done_step_api", step, is_vector_env=True)
    assert_same_result(mine[:3], theirs[:3])
    if list_infos:
        assert [{k: bool(v) for k, v in i.items()} for i in mine[3]] == [
            {k: bool(v) for k, v in i.items()} for i in theirs[3]
        ]
    else:
        assert_same_result(mine[3:], theirs[3:])


@pytest.mark.parametrize("output_truncation_bool", [False, True])
@pytest.mark.parametrize("step", [(0, 1.0, True, {}), (0, 1.0, True, False, {})])
def test_step_api_compatibility_dispatches_on_the_requested_api(step, output_truncation_bool):
    assert_same_result(
        *both("step_api_compatibility", step, output_truncation_bool=output_truncation_bool)
    )


@pytest.mark.parametrize(
    "function_name", ["convert_to_done_step_api", "convert_to_terminated_truncated_step_api"]
)
def test_a_step_result_of_the_wrong_length_is_an_assertion_error(function_name):
    with pytest.raises(AssertionError, match="4 or 5 items, got 3"):
        getattr(ours, function_name)((0, 1.0, True))
    with pytest.raises(AssertionError):
        getattr(reference, function_name)((0, 1.0, True))
