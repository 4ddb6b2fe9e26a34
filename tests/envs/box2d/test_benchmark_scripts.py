"""The Box2D benchmark lines: they exist in the judged suite and produce their numbers."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tests.fixtures.scripts import load_script


def load(name: str):
    return load_script(f"benchmarks/{name}.py")


def test_suite_measures_the_pool_against_gymnasiums_vector_envs_for_box2d():
    suite = {(s.arguments[0], s.reference): s.arguments for s in load("run_all").SUITE}
    assert "pool" in suite[("LunarLander-v3", "gym-sync")][2]
    assert "pool" in suite[("LunarLander-v3", "gym-async")][2]
    car = suite[("CarRacing-v3", "gym-async")]
    assert "pool" in car[2] and car[4] == "4"


def test_suite_measures_single_env_steps_of_every_box2d_id():
    run_all = load("run_all")
    assert [arguments[:2] for _, arguments in run_all.SINGLE_ENV] == [["--env-ids", "box2d"]]
    assert len(load("single_env_step").BOX2D_IDS) == 5


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "CarRacing-v3"])
def test_single_env_step_prints_a_ratio_for_a_box2d_id(gymnasium, env_id):
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        load("single_env_step").main(["--env-ids", env_id, "--steps", "20", "--repeats", "1"])
    line = json.loads(output.getvalue())
    assert line["env_id"] == env_id
    assert line["steps"] == (2 if env_id == "CarRacing-v3" else 20)
    assert line["unwrapped_ratio"] > 0 and line["make_ratio"] > 0
