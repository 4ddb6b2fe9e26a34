"""PassiveEnvChecker checks spaces at construction and the first reset, step and render."""

import numpy as np
import pytest

import palaestra
from palaestra.envs.registration import EnvSpec
from palaestra.wrappers import PassiveEnvChecker
from tests.fixtures.broken_envs import make_broken_env
from tests.fixtures.counting_env import counting_env_class, make_counting_env
from tests.fixtures.outcomes import run_and_record


def checked(case):
    return PassiveEnvChecker(make_broken_env(palaestra, case))


def warnings_of(function, *args, **kwargs):
    outcome = run_and_record(function, *args, **kwargs)
    assert outcome.error is None, outcome.error
    return outcome.warnings


def test_a_sound_env_passes_silently():
    env = PassiveEnvChecker(make_counting_env(palaestra, render_mode="ansi"))
    assert warnings_of(env.reset, seed=0) == []
    assert warnings_of(env.step, 1) == []
    assert warnings_of(env.step, 1) == []
    assert warnings_of(env.render) == []


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("MissingActionSpace", "The environment must specify an action space"),
        ("MissingObservationSpace", "The environment must specify an observation space"),
    ],
)
def test_a_missing_space_fails_at_construction(case, message):
    with pytest.raises(AttributeError, match=message):
        checked(case)


def test_a_non_env_fails_at_construction_as_any_wrapper_does():
    # Gymnasium's Wrapper.__init__ rejects it before the checker's own Env check can run.
    with pytest.raises(TypeError, match=r"Expected env to be a `palaestra\.Env`"):
        PassiveEnvChecker(make_broken_env(palaestra, "NotAnEnv"))


def test_a_degenerate_space_warns_at_construction():
    outcome = run_and_record(checked, "ActionBoxDegenerate")
    assert outcome.warnings == ["A Box action space maximum and minimum values are equal."]


def test_only_the_first_reset_is_checked():
    env = checked("WrongObsDtype")
    assert warnings_of(env.reset) == [
        "The obs returned by the `reset()` method was expecting numpy array dtype to be "
        "float32, actual type: float16"
    ]
    assert warnings_of(env.reset) == []


def test_only_the_first_step_is_checked():
    env = checked("RewardNotNumber")
    env.reset()
    assert len(warnings_of(env.step, 0)) == 1
    assert warnings_of(env.step, 0) == []


def test_a_step_of_the_wrong_length_raises():
    env = checked("StepReturnsThree")
    env.reset()
    with pytest.raises(palaestra.error.Error, match="actual number of elements returned: 3"):
        env.step(0)


def test_reused_buffers_are_reported_for_reset_then_step_and_step_then_step():
    env = checked("ReusesObsBuffer")
    env.reset()
    first, second = warnings_of(env.step, 1), warnings_of(env.step, 1)
    assert first[0].startswith(
        "The observations returned by `reset` and the following `step` share an object"
    )
    assert second[0].startswith(
        "The observations returned by `step` and the following `step` share an object"
    )
    assert warnings_of(env.step, 1) == []


def test_only_the_first_render_is_checked():
    env = checked("RenderWrongFrame")
    env.reset()
    assert len(warnings_of(env.render)) == 2
    assert warnings_of(env.render) == []


def test_results_pass_through_unchanged():
    env = PassiveEnvChecker(make_counting_env(palaestra))
    obs, info = env.reset()
    assert (obs.tolist(), info) == ([0], {"reset": True})
    assert env.step(2)[1:] == (2.5, False, False, {"count": 1})


def test_a_failing_second_close_warns_and_reraises():
    env = checked("CloseFailsTwice")
    env.close()
    outcome = run_and_record(env.close)
    assert isinstance(outcome.error, RuntimeError)
    assert outcome.warnings == [
        "Calling `env.close()` on the closed environment should be allowed, but it raised the "
        "following exception."
    ]


def test_spec_says_the_checker_is_enabled():
    inner = make_counting_env(palaestra)
    inner.spec = EnvSpec(
        id="Counting-v0", entry_point=counting_env_class(palaestra), disable_env_checker=True
    )
    assert PassiveEnvChecker(inner).spec.disable_env_checker is False


@pytest.mark.parametrize(
    "case",
    ["WrongObsDtype", "RewardNaN", "TerminatedNotBool", "ReusesObsBuffer", "RenderWrongFrame"],
)
def test_warnings_match_gymnasiums_passive_checker(case):
    gymnasium = pytest.importorskip("gymnasium")

    def first_calls(gym):
        env = gym.wrappers.PassiveEnvChecker(make_broken_env(gym, case))
        env.reset(seed=0)
        env.step(np.int64(1))
        env.step(np.int64(1))
        env.render()

    ours = run_and_record(first_calls, palaestra)
    theirs = run_and_record(first_calls, gymnasium)
    assert ours.error is None and theirs.error is None
    assert ours.warnings == theirs.warnings
