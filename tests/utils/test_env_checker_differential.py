"""Gymnasium's check_env and ours judge every broken env the same way.

Both checkers run on twins of each broken env (built from each library's ``Env`` and spaces);
they must raise the same exception type and give the same warnings (texts compared with the
library name and whitespace normalised, since a few of Gymnasium's messages have typos).
"""

import re

import pytest

import palaestra
from palaestra.utils.env_checker import check_env
from tests.fixtures.broken_envs import BROKEN_ENVS, PALAESTRA_ONLY, make_broken_env
from tests.fixtures.outcomes import run_and_record

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env as gymnasium_check_env  # noqa: E402

SHARED_CASES = sorted(set(BROKEN_ENVS) - PALAESTRA_ONLY)


def normalised(text):
    text = text.replace("gymnasium", "palaestra")
    return re.sub(r"\s+", "", text)


def both_outcomes(case):
    kwargs = BROKEN_ENVS[case].check_kwargs
    ours = run_and_record(check_env, make_broken_env(palaestra, case), **kwargs)
    theirs = run_and_record(gymnasium_check_env, make_broken_env(gymnasium, case), **kwargs)
    return ours, theirs


@pytest.mark.parametrize("case", SHARED_CASES)
def test_both_checkers_raise_the_same_exception_type(case):
    ours, theirs = both_outcomes(case)
    assert ours.error_name == theirs.error_name, (ours.error, theirs.error)


@pytest.mark.parametrize("case", SHARED_CASES)
def test_both_checkers_give_the_same_warnings(case):
    ours, theirs = both_outcomes(case)
    assert sorted(map(normalised, ours.warnings)) == sorted(map(normalised, theirs.warnings))


@pytest.mark.parametrize("case", sorted(PALAESTRA_ONLY))
def test_gymnasium_misses_what_only_palaestra_catches(case):
    ours, theirs = both_outcomes(case)
    assert ours.error is not None
    assert theirs.error is None
