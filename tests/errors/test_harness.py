"""The harness's comparison finds every kind of mismatch it claims to (so a pass means parity)."""

from __future__ import annotations

from tests.errors.harness import Outcome, compare, names_itself, normalise


def test_the_same_outcome_agrees():
    outcome = Outcome(ValueError("bad n"), [(UserWarning, "careful")])
    assert compare(outcome, outcome) == []


def test_guidance_after_gymnasiums_text_agrees():
    theirs = Outcome(ValueError("bad n"), [(UserWarning, "careful")])
    ours = Outcome(ValueError("bad n; use n > 0"), [(UserWarning, "careful, see docs")])
    assert compare(ours, theirs) == []


def test_a_subclass_of_gymnasiums_exception_agrees():
    class Narrower(ValueError):
        pass

    assert compare(Outcome(Narrower("bad n")), Outcome(ValueError("bad n"))) == []


def test_another_exception_type_is_a_mismatch():
    problems = compare(Outcome(TypeError("bad n")), Outcome(ValueError("bad n")))
    assert len(problems) == 1
    assert problems[0].startswith("type:")


def test_a_message_without_gymnasiums_text_is_a_mismatch():
    problems = compare(Outcome(ValueError("n is bad")), Outcome(ValueError("bad n")))
    assert problems == ["message: 'n is bad' lacks 'bad n'"]


def test_raising_where_gymnasium_does_not_is_a_mismatch():
    assert compare(Outcome(ValueError("x")), Outcome(None)) == [
        "palaestra raised ValueError('x'), Gymnasium did not"
    ]


def test_a_missing_warning_is_a_mismatch():
    theirs = Outcome(None, [(DeprecationWarning, "old")])
    assert compare(Outcome(None), theirs) == ["missing warning DeprecationWarning: 'old'"]


def test_a_warning_of_another_category_is_a_mismatch():
    theirs = Outcome(None, [(DeprecationWarning, "old")])
    ours = Outcome(None, [(UserWarning, "old")])
    assert compare(ours, theirs) == [
        "missing warning DeprecationWarning: 'old'",
        "extra warning UserWarning: 'old'",
    ]


def test_normalise_makes_gymnasiums_self_names_palaestras():
    text = "\x1b[33mnot a gymnasium space: <gymnasium.spaces.box.Box object at 0x7f00>\x1b[0m"
    assert normalise(text) == "not a palaestra space: <palaestra.spaces.box.Box object at 0x?>"


def test_normalise_leaves_other_mentions_of_gymnasium_alone():
    text = "See https://gymnasium.farama.org for more info about Gymnasium"
    assert normalise(text) == text


def test_normalise_without_rename_keeps_prose_names_and_renames_reprs():
    text = "not a gymnasium space: <class 'gymnasium.spaces.box.Box'>; Current gymnasium version"
    assert normalise(text, rename=False) == (
        "not a gymnasium space: <class 'palaestra.spaces.box.Box'>; Current gymnasium version"
    )


def test_a_message_names_itself_in_prose_not_in_a_repr():
    assert names_itself("does not inherit from `gymnasium.spaces.Space`")
    assert names_itself("Current gymnasium version requires that `Env.reset` can be passed")
    assert not names_itself("Expects all spaces, actual: [<class 'gymnasium.spaces.box.Box'>]")
