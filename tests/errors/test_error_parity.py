"""Every misuse in the case tables fails (or warns) in palaestra exactly as in Gymnasium.

Gymnasium 1.4 is the oracle: each case runs against both libraries, and palaestra must raise
the same exception type, warn with the same categories, and give messages containing
Gymnasium's text (see ``tests.errors.harness.compare`` for the precise rule and the
normalisation). A second test proves the tables reach every raise/warn site of Gymnasium's
modules except the commented exclusions.
"""

from __future__ import annotations

import sys

import pytest

import palaestra
from tests.errors import (
    cases_checkers,
    cases_registration,
    cases_spaces,
    cases_vector_envs,
    cases_vector_utils,
    cases_wrappers,
)
from tests.errors.exclusions import EXCLUDED, REACHED_IN_WORKERS
from tests.errors.harness import compare, names_itself, run_case
from tests.errors.sites import gymnasium_sites, reached_sites

gymnasium = pytest.importorskip("gymnasium")

TABLES = (
    cases_spaces,
    cases_registration,
    cases_checkers,
    cases_vector_utils,
    cases_vector_envs,
    cases_wrappers,
)
PARAMS = [param for table in TABLES for param in table.TABLE.params()]
ALL_CASES = [case for table in TABLES for case in table.TABLE.cases]


@pytest.mark.parametrize("misuse", PARAMS)
def test_palaestra_fails_like_gymnasium(misuse, monkeypatch):
    theirs = run_case(misuse, gymnasium)
    assert theirs.error is not None or theirs.warnings, "not a misuse for Gymnasium"
    ours = run_case(misuse, palaestra)
    assert compare(ours, theirs) == [], (
        f"Gymnasium {theirs.describe()}\npalaestra {ours.describe()}"
    )
    texts = [str(theirs.error), *(text for _, text in theirs.warnings)]
    if any(names_itself(text) for text in texts):
        # Run as Gymnasium's stand-in, palaestra names the classes to inherit from as
        # Gymnasium does (`gymnasium.spaces.Space`), so code matching on the text still matches.
        monkeypatch.setitem(sys.modules, "gymnasium", palaestra)
        standing_in = run_case(misuse, palaestra)
        monkeypatch.undo()
        assert compare(standing_in, theirs, rename=False) == [], (
            f"Gymnasium {theirs.describe()}\npalaestra as gymnasium {standing_in.describe()}"
        )


def sites_of_gymnasium():
    return {site.name: site for site in gymnasium_sites(gymnasium)}


@pytest.fixture(scope="module")
def sites():
    return sites_of_gymnasium()


@pytest.fixture(scope="module")
def reached():
    return reached_sites(gymnasium, ALL_CASES)


# The exclusion lists name lines of the installed Gymnasium, which the suite pins.
pinned = pytest.mark.skipif(
    gymnasium.__version__ != "1.4.0", reason="the site lines are those of Gymnasium 1.4.0"
)


@pinned
def test_every_gymnasium_site_is_reached_or_excluded(sites, reached):
    missing = sorted(set(sites) - reached - set(EXCLUDED) - set(REACHED_IN_WORKERS))
    assert missing == []


@pinned
def test_worker_sites_name_real_sites_and_cases():
    names = {case.__name__ for case in ALL_CASES}
    assert sorted(set(REACHED_IN_WORKERS) - set(sites_of_gymnasium())) == []
    assert sorted(set(REACHED_IN_WORKERS.values()) - names) == []


@pinned
def test_exclusions_name_real_sites_that_no_case_reaches(sites, reached):
    assert sorted(set(EXCLUDED) - set(sites)) == []
    assert sorted(set(EXCLUDED) & reached) == []
