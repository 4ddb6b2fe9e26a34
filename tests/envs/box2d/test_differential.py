"""Step-for-step equality with Gymnasium 1.4's Box2D environments (the oracle).

Every id, several seeds, random and heuristic actions and every constructor option: the
observations (CarRacing's are pixels), rewards, flags and infos must be identical, across
episode boundaries too. The default suite runs LunarLander for 1,000+ steps per case, the
walker for 600 and CarRacing for 80 (its every step draws a frame on both
sides); the ``slow`` cases run every id for 1,000-2,000 steps.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.envs.box2d.conftest import driving_policy, random_policy, run_side_by_side


def lander_heuristic(env, observation, rng):
    from palaestra.envs.box2d.lunar_lander import heuristic

    return heuristic(env, observation)


def walker_heuristic():
    from palaestra.envs.box2d.bipedal_walker import BipedalWalkerHeuristics

    walker = BipedalWalkerHeuristics()
    return lambda env, observation, rng: walker.step_heuristic(observation)


LANDER_OPTIONS = [
    {},
    {"gravity": -3.0},
    {"gravity": -11.9},
    {"enable_wind": True},
    {"enable_wind": True, "wind_power": 20.0, "turbulence_power": 2.0, "gravity": -8.0},
    {"enable_wind": True, "wind_power": 0.0, "turbulence_power": 0.0},
]


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "LunarLanderContinuous-v3"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lander_matches_gymnasium_under_random_actions(gymnasium, env_id, seed):
    episodes = run_side_by_side(gymnasium, env_id, seed, 1200, random_policy())
    assert episodes > 3  # random landers crash: episode boundaries are covered


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "LunarLanderContinuous-v3"])
@pytest.mark.parametrize("seed", [0, 7])
def test_lander_matches_gymnasium_under_the_heuristic(gymnasium, env_id, seed):
    run_side_by_side(gymnasium, env_id, seed, 1200, lander_heuristic)


@pytest.mark.parametrize("options", LANDER_OPTIONS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("continuous", [False, True])
def test_lander_matches_gymnasium_for_every_option(gymnasium, options, continuous):
    kwargs = {**options, "continuous": continuous}
    run_side_by_side(gymnasium, "LunarLander-v3", 3, 1000, lander_heuristic, kwargs)


def test_continuous_lander_matches_gymnasium_for_actions_past_the_bounds(gymnasium):
    run_side_by_side(gymnasium, "LunarLanderContinuous-v3", 4, 1000, random_policy(2.0))


def test_lander_with_a_render_mode_matches_gymnasium_with_its_exhaust_particles(gymnasium):
    # With a render mode the engines also spawn particle bodies into the world.
    run_side_by_side(
        gymnasium, "LunarLander-v3", 5, 400, lander_heuristic, {"render_mode": "rgb_array"}
    )


def test_lander_matches_gymnasium_for_numpy_integer_actions(gymnasium):
    # A vector env hands each sub-env a numpy int64, as the pool's workers do.
    def act(env, observation, rng):
        return np.int64(rng.integers(4))

    episodes = run_side_by_side(gymnasium, "LunarLander-v3", 6, 1000, act)
    assert episodes > 3


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "LunarLanderContinuous-v3"])
def test_lander_generator_stays_in_gymnasiums_state_at_every_step(gymnasium, env_id):
    def same_generator_state(ours, theirs, t):
        ours_state = ours.unwrapped.np_random.bit_generator.state
        assert ours_state == theirs.unwrapped.np_random.bit_generator.state, f"step {t}"

    run_side_by_side(gymnasium, env_id, 8, 600, random_policy(), on_step=same_generator_state)


def describe_world(world) -> list:
    """Every body, fixture and joint of a Box2D world, by the values the engine holds."""
    bodies = []
    for body in world.bodies:
        fixtures = []
        for fixture in body.fixtures:
            shape, filtering = fixture.shape, fixture.filterData
            fixtures.append(
                (
                    type(shape).__name__,
                    shape.radius,
                    [tuple(vertex) for vertex in getattr(shape, "all_vertices", shape.vertices)],
                    getattr(shape, "hasVertex0", None),
                    getattr(shape, "hasVertex3", None),
                    fixture.density,
                    fixture.friction,
                    fixture.restitution,
                    fixture.sensor,
                    (filtering.categoryBits, filtering.maskBits, filtering.groupIndex),
                )
            )
        bodies.append(
            (
                body.type,
                tuple(body.position),
                body.angle,
                tuple(body.linearVelocity),
                body.angularVelocity,
                body.mass,
                body.inertia,
                tuple(body.localCenter),
                body.awake,
                fixtures,
            )
        )
    joints = [
        (
            type(joint).__name__,
            tuple(joint.anchorA),
            tuple(joint.anchorB),
            joint.GetReferenceAngle(),
            joint.limits,
            joint.limitEnabled,
            joint.motorEnabled,
            joint.motorSpeed,
            joint.GetMaxMotorTorque(),
            joint.collideConnected,
        )
        for joint in world.joints
    ]
    return [bodies, joints]


@pytest.mark.parametrize(
    ("env_id", "options"),
    [
        ("LunarLander-v3", {}),
        ("LunarLander-v3", {"enable_wind": True}),
        ("LunarLander-v3", {"render_mode": "rgb_array"}),
        ("BipedalWalker-v3", {}),
        ("BipedalWalkerHardcore-v3", {}),
    ],
)
def test_reset_builds_gymnasiums_world(gymnasium, env_id, options):
    import palaestra

    ours = palaestra.make(env_id, **options).unwrapped
    theirs = gymnasium.make(env_id, **options).unwrapped
    for seed in range(5):
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        assert describe_world(ours.world) == describe_world(theirs.world), f"seed {seed}"
        # Unseeded resets build from the definitions kept since the first.
        ours.reset()
        theirs.reset()
        assert describe_world(ours.world) == describe_world(theirs.world), f"after {seed}"


@pytest.mark.parametrize("env_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
@pytest.mark.parametrize("seed", [0, 1])
def test_walker_matches_gymnasium_under_random_actions(gymnasium, env_id, seed):
    run_side_by_side(gymnasium, env_id, seed, 600, random_policy())


@pytest.mark.parametrize("env_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_walker_matches_gymnasium_under_the_heuristic(gymnasium, env_id):
    run_side_by_side(gymnasium, env_id, 2, 600, walker_heuristic())


def test_walker_matches_gymnasium_for_float64_actions_past_the_bounds(gymnasium):
    # float64 actions keep the reward in float64; float32 ones make it float32 (as there).
    def act(env, observation, rng):
        return rng.uniform(-1.5, 1.5, size=4)

    run_side_by_side(gymnasium, "BipedalWalker-v3", 3, 400, act)


def test_walker_terrain_matches_gymnasium_over_many_hardcore_resets(gymnasium):
    import palaestra

    ours, theirs = (
        palaestra.make("BipedalWalkerHardcore-v3"),
        gymnasium.make("BipedalWalkerHardcore-v3"),
    )
    for seed in range(20):
        np.testing.assert_array_equal(ours.reset(seed=seed)[0], theirs.reset(seed=seed)[0])
        assert ours.unwrapped.terrain_y == theirs.unwrapped.terrain_y
        assert len(ours.unwrapped.terrain) == len(theirs.unwrapped.terrain)


CAR_OPTIONS = [
    ({}, True),
    ({"continuous": False}, False),
    ({"domain_randomize": True}, True),
    ({"domain_randomize": True, "continuous": False}, False),
    ({"lap_complete_percent": 0.5}, True),
]


@pytest.mark.parametrize(("options", "continuous"), CAR_OPTIONS, ids=lambda o: str(o))
def test_car_racing_pixels_and_rewards_match_gymnasium(gymnasium, options, continuous):
    run_side_by_side(gymnasium, "CarRacing-v3", 1, 80, driving_policy(continuous), options)


def test_car_racing_matches_gymnasium_under_random_actions(gymnasium):
    run_side_by_side(gymnasium, "CarRacing-v3", 2, 80, random_policy())


def test_car_racing_laps_end_episodes_as_in_gymnasium(gymnasium):
    # With lap_complete_percent=0 the start tile, touched at reset, completes a lap at once:
    # every episode ends on its first step with lap_finished, then resets.
    episodes = run_side_by_side(
        gymnasium, "CarRacing-v3", 3, 6, driving_policy(), {"lap_complete_percent": 0.0}
    )
    assert episodes == 7


def test_car_racing_leaving_the_playfield_matches_gymnasium(gymnasium):
    import palaestra

    ours, theirs = palaestra.make("CarRacing-v3"), gymnasium.make("CarRacing-v3")
    for env in (ours, theirs):
        env.reset(seed=4)
        env.unwrapped.car.hull.position = (400.0, 10.0)
    action = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    result, expected = ours.step(action), theirs.step(action)
    np.testing.assert_array_equal(result[0], expected[0])
    assert result[1:] == expected[1:] == (-100, True, False, {"lap_finished": False})


def test_car_racing_keeps_its_colours_when_asked_as_gymnasium_does(gymnasium):
    import palaestra

    ours = palaestra.make("CarRacing-v3", domain_randomize=True)
    theirs = gymnasium.make("CarRacing-v3", domain_randomize=True)
    np.testing.assert_array_equal(ours.reset(seed=5)[0], theirs.reset(seed=5)[0])
    kept = ours.unwrapped.road_color.copy()
    observation = ours.reset(seed=6, options={"randomize": False})[0]
    np.testing.assert_array_equal(
        observation, theirs.reset(seed=6, options={"randomize": False})[0]
    )
    np.testing.assert_array_equal(ours.unwrapped.road_color, kept)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["LunarLander-v3", "LunarLanderContinuous-v3"])
@pytest.mark.parametrize("seed", range(3, 8))
def test_lander_matches_gymnasium_for_long_runs(gymnasium, env_id, seed):
    run_side_by_side(gymnasium, env_id, seed, 5000, random_policy())
    run_side_by_side(gymnasium, env_id, seed, 5000, lander_heuristic, {"enable_wind": True})


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
@pytest.mark.parametrize("seed", [3, 4, 5])
def test_walker_matches_gymnasium_for_long_runs(gymnasium, env_id, seed):
    run_side_by_side(gymnasium, env_id, seed, 2000, random_policy(1.5))
    run_side_by_side(gymnasium, env_id, seed, 2000, walker_heuristic())


@pytest.mark.slow
@pytest.mark.parametrize(("options", "continuous"), CAR_OPTIONS, ids=lambda o: str(o))
def test_car_racing_matches_gymnasium_for_long_runs(gymnasium, options, continuous):
    run_side_by_side(gymnasium, "CarRacing-v3", 7, 1000, driving_policy(continuous), options)


def test_verbose_car_racing_prints_gymnasiums_track_messages(gymnasium, capsys):
    import palaestra

    for seed in (0, 9):
        palaestra.make("CarRacing-v3", verbose=True).reset(seed=seed)
        ours = capsys.readouterr().out
        gymnasium.make("CarRacing-v3", verbose=True).reset(seed=seed)
        assert ours == capsys.readouterr().out
        assert "Track generation:" in ours
