"""check_env catches every kind of broken environment in tests/fixtures/broken_envs.py.

Each case asserts the exact exception type and message start, and the warnings it must give.
"""

import pytest

import palaestra
from palaestra.utils.env_checker import check_env
from tests.fixtures.broken_envs import BROKEN_ENVS, make_broken_env
from tests.fixtures.outcomes import run_and_record

CASES = sorted(BROKEN_ENVS)


def check_broken(case):
    expected = BROKEN_ENVS[case]
    env = make_broken_env(palaestra, case)
    return run_and_record(check_env, env, **expected.check_kwargs)


def test_there_are_at_least_ten_distinct_broken_envs_that_fail_loudly():
    failing = [c for c in CASES if BROKEN_ENVS[c].error is not None or BROKEN_ENVS[c].warnings]
    assert len(failing) >= 10


@pytest.mark.parametrize("case", CASES)
def test_check_env_raises_the_expected_error(case):
    outcome = check_broken(case)
    expected = BROKEN_ENVS[case]
    assert outcome.error_name == expected.error, outcome.error
    assert outcome.error_message.startswith(expected.message)


@pytest.mark.parametrize("case", [c for c in CASES if BROKEN_ENVS[c].warnings])
def test_check_env_gives_the_expected_warnings(case):
    outcome = check_broken(case)
    for text in BROKEN_ENVS[case].warnings:
        assert any(w.startswith(text) for w in outcome.warnings), (text, outcome.warnings)


def test_errors_of_the_error_kind_are_palaestra_errors():
    outcome = check_broken("StepReturnsThree")
    assert isinstance(outcome.error, palaestra.error.Error)


def test_the_sound_base_env_passes_without_warnings():
    outcome = check_broken("Sound")
    assert outcome.error is None
    assert outcome.warnings == []


def test_sound_base_env_with_render_checks_only_warns_about_its_missing_spec():
    env = make_broken_env(palaestra, "Sound")
    outcome = run_and_record(check_env, env)
    assert outcome.error is None
    assert outcome.warnings == [
        "Not able to test alternative render modes due to the environment not having a spec. "
        "Try instantiating the environment through `palaestra.make`"
    ]
