"""Misuses the environment checkers catch (``utils/env_checker.py``, ``passive_env_checker.py``).

Every broken env of ``tests.fixtures.broken_envs`` is one ``check_env`` case; the rest call the
checkers' public functions directly with one malformed space, observation or env.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np

from tests.errors.harness import CaseTable
from tests.fixtures.broken_envs import BROKEN_ENVS, PALAESTRA_ONLY, make_broken_env

TABLE = CaseTable("checkers")
case = TABLE.add


def checkers(gym: ModuleType) -> tuple[ModuleType, ModuleType]:
    """The framework's ``env_checker`` and ``passive_env_checker`` modules."""
    return (
        importlib.import_module(f"{gym.__name__}.utils.env_checker"),
        importlib.import_module(f"{gym.__name__}.utils.passive_env_checker"),
    )


def _check_env_case(name: str):
    def misuse(gym):
        checkers(gym)[0].check_env(make_broken_env(gym, name), **BROKEN_ENVS[name].check_kwargs)

    misuse.__name__ = f"check_env_on_{name}"
    return misuse


for _name, _expected in sorted(BROKEN_ENVS.items()):
    if _name not in PALAESTRA_ONLY and (_expected.error or _expected.warnings):
        case(_check_env_case(_name))


# ---- scripted envs: each call returns the next scripted value --------------------------------
def scripted_env(gym, resets=(), steps=(), render=None, metadata=None, render_mode=None, **attrs):
    """An env of ``gym`` over a Box(0, 1, (2,)) whose reset/step return the scripted results.

    ``resets``/``steps`` are sequences of results (the last one repeats); a callable entry is
    called with the env to build the result.
    """
    box = gym.spaces.Box(0.0, 1.0, (2,), np.float64)

    def next_of(script, index):
        value = script[min(index, len(script) - 1)]
        return value

    def reset(self, *, seed=None, options=None):
        super(type(self), self).reset(seed=seed)
        result = next_of(self.resets, self.reset_count)
        self.reset_count += 1
        return result(self) if callable(result) else result

    def step(self, action):
        result = next_of(self.steps, self.step_count)
        self.step_count += 1
        return result(self) if callable(result) else result

    body = {
        "reset": reset,
        "step": step,
        "render": lambda self: render,
        "metadata": metadata if metadata is not None else {"render_modes": [], "render_fps": 4},
        **attrs,
    }
    env = type("Scripted", (gym.Env,), body)()
    env.observation_space, env.action_space = box, gym.spaces.Discrete(2)
    env.render_mode = render_mode
    env.resets = list(resets) or [lambda env: (np.full(2, 0.5), {})]
    env.steps = list(steps) or [lambda env: (np.full(2, 0.5), 0.0, False, False, {})]
    env.reset_count = env.step_count = 0
    env.spec = gym.envs.registration.EnvSpec("Scripted-v0", entry_point=type(env))
    return env


def fresh(obs):
    """A reset result of a copy of ``obs`` with a new info dict."""
    return lambda env: (np.array(obs, dtype=np.float64), {})


def fresh_step(obs=(0.5, 0.5), reward=0.0, terminated=False, truncated=False, info=None):
    """A step result with copies of everything."""
    return lambda env: (
        np.array(obs, dtype=np.float64),
        reward,
        terminated,
        truncated,
        dict(info or {}),
    )


IN, OUT = (0.5, 0.5), (2.0, 2.0)


def _reset_outside_at(call: int):
    def misuse(gym):
        resets = [fresh(IN)] * 5
        resets[call - 1] = fresh(OUT)
        checkers(gym)[0].check_reset_seed_determinism(scripted_env(gym, resets))

    misuse.__name__ = f"reset_seed_determinism_obs_outside_at_call_{call}"
    return misuse


for _call in (1, 2, 3, 4, 5):
    case(_reset_outside_at(_call))


@case
def reset_seed_then_unseeded_reset_differs(gym):
    resets = [fresh(IN), fresh((0.1, 0.1)), fresh(IN), fresh((0.2, 0.2)), fresh(IN)]
    checkers(gym)[0].check_reset_seed_determinism(scripted_env(gym, resets))


@case
def reset_seed_observations_only_nearly_equal(gym):
    resets = [fresh(IN), fresh(IN), fresh((0.5, 0.5 + 1e-9)), fresh(IN), fresh(IN)]
    checkers(gym)[0].check_reset_seed_determinism(scripted_env(gym, resets))


@case
def reset_then_unseeded_observations_only_nearly_equal(gym):
    resets = [fresh(IN), fresh(IN), fresh(IN), fresh((0.5, 0.5 + 1e-9)), fresh(IN)]
    checkers(gym)[0].check_reset_seed_determinism(scripted_env(gym, resets))


def _always_seed_123(gym):
    env = scripted_env(gym)
    base_reset = type(env).reset

    def reset(self, *, seed=None, options=None):
        return base_reset(self, seed=None if seed is None else 123, options=options)

    type(env).reset = reset
    return env


@case
def reset_ignores_which_seed_it_is_given(gym):
    checkers(gym)[0].check_reset_seed_determinism(_always_seed_123(gym))


def _reset_rejecting(keyword: str):
    def misuse(gym):
        env = scripted_env(gym)
        base_reset = type(env).reset

        def reset(self, *, seed=None, options=None):
            if (keyword == "seed" and seed is not None) or (keyword == "options" and options):
                raise TypeError(f"cannot take {keyword}")
            return base_reset(self, seed=seed, options=options)

        type(env).reset = reset
        function = "check_reset_seed_determinism" if keyword == "seed" else "check_reset_options"
        getattr(checkers(gym)[0], function)(env)

    misuse.__name__ = f"reset_raises_type_error_on_{keyword}"
    return misuse


case(_reset_rejecting("seed"))


@case
def reset_options_raises_type_error(gym):
    env = scripted_env(gym)

    def reset(self, *, seed=None, options=None):
        if options is not None:
            raise TypeError("cannot take options")
        return np.full(2, 0.5), {}

    type(env).reset = reset
    checkers(gym)[0].check_reset_options(env)


# ---- step determinism ------------------------------------------------------------------------
@case
def step_determinism_reset_without_super(gym):
    env = scripted_env(gym)
    type(env).reset = lambda self, *, seed=None, options=None: (np.full(2, 0.5), {})
    checkers(gym)[0].check_step_determinism(env)


def _forget_rng(env):
    if env.step_count == 2:  # counted before the result is built: the second step
        env.unwrapped._np_random = None
    return np.full(2, 0.5), 0.0, False, False, {}


@case
def step_drops_the_random_generator(gym):
    env = scripted_env(gym, steps=[_forget_rng])
    checkers(gym)[0].check_step_determinism(env)


def _draw_more_each_time(env):
    env.np_random.random(env.step_count + 1)
    return np.full(2, 0.5), 0.0, False, False, {}


@case
def step_draws_a_varying_amount_of_randomness(gym):
    checkers(gym)[0].check_step_determinism(scripted_env(gym, steps=[_draw_more_each_time]))


def _step_determinism(gym, first, second):
    env = scripted_env(gym, steps=[first, second])
    checkers(gym)[0].check_step_determinism(env)


@case
def step_observations_only_nearly_equal(gym):
    _step_determinism(gym, fresh_step(), fresh_step(obs=(0.5, 0.5 + 1e-9)))


@case
def step_rewards_only_nearly_equal(gym):
    _step_determinism(
        gym, fresh_step(reward=np.array(1.0)), fresh_step(reward=np.array(1.0 + 1e-9))
    )


@case
def step_terminations_differ(gym):
    _step_determinism(gym, fresh_step(terminated=False), fresh_step(terminated=True))


@case
def step_infos_differ(gym):
    _step_determinism(gym, fresh_step(info={"a": 1}), fresh_step(info={"a": 2}))


@case
def step_infos_only_nearly_equal(gym):
    _step_determinism(
        gym, fresh_step(info={"a": np.array(1.0)}), fresh_step(info={"a": np.array(1.0 + 1e-9)})
    )


@case
def reset_and_step_share_the_info_dict(gym):
    shared: dict = {}
    env = scripted_env(
        gym,
        resets=[lambda env: (np.full(2, 0.5), shared)],
        steps=[lambda env: (np.full(2, 0.5), 0.0, False, False, shared)],
    )
    checkers(gym)[0].check_returned_data_not_reused(env)


@case
def reset_returns_a_three_tuple(gym):
    env = scripted_env(gym, resets=[lambda env: (np.full(2, 0.5), {}, None)])
    checkers(gym)[0].check_reset_return_type(env)


# ---- check_env arguments and the space limits ------------------------------------------------
@case
def check_env_with_the_ignored_warn_argument(gym):
    env = make_broken_env(gym, "Sound")
    checkers(gym)[0].check_env(env, warn=True, skip_render_check=True)


@case
def check_env_on_an_old_gym_env(gym):
    old_env = type("Env", (), {"__module__": "gym.core"})
    checkers(gym)[0].check_env(type("OldGym", (old_env,), {})())


@case
def check_env_on_a_non_env(gym):
    checkers(gym)[0].check_env("CartPole-v1")


@case
def passive_env_checker_of_a_non_env(gym):
    gym.wrappers.PassiveEnvChecker(object())


@case
def check_env_on_a_wrapped_env(gym):
    env = gym.wrappers.ClipReward(make_broken_env(gym, "Sound"), min_reward=-1)
    checkers(gym)[0].check_env(env, skip_render_check=True)


@case
def space_limit_of_an_unbounded_below_box(gym):
    space = gym.spaces.Box(np.array([-np.inf, 0.0]), np.ones(2))
    checkers(gym)[0].check_space_limit(space, "observation")


@case
def space_limit_of_an_unbounded_above_box(gym):
    space = gym.spaces.Box(np.zeros(2), np.array([1.0, np.inf]))
    checkers(gym)[0].check_space_limit(space, "observation")


# ---- passive checker: spaces -----------------------------------------------------------------
def tampered(space, **fields):
    """``space`` with attributes overwritten after construction (as a buggy env might)."""
    for name, value in fields.items():
        setattr(space, name, value)
    return space


def _box_bounds_case(kind: str, side: str, problem: str):
    def misuse(gym):
        space = gym.spaces.Box(0.0, 1.0, (2,))
        if problem == "shape":
            tampered(space, **{side: np.zeros(3, np.float32)})
        elif problem == "equal":
            space = gym.spaces.Box(0.0, 0.0, (2,))
        else:
            tampered(space, low=np.ones(2, np.float32), high=np.zeros(2, np.float32))
        getattr(checkers(gym)[1], f"check_{kind}_space")(space)

    misuse.__name__ = f"{kind}_box_{problem}" + (f"_{side}" if problem == "shape" else "")
    return misuse


for _kind in ("observation", "action"):
    for _side in ("low", "high"):
        case(_box_bounds_case(_kind, _side, "shape"))
    case(_box_bounds_case(_kind, "", "equal"))
case(_box_bounds_case("observation", "", "inverted"))


@case
def space_of_an_old_gym_space(gym):
    old_space = type("Space", (), {"__module__": "gym.spaces.space"})
    checkers(gym)[1].check_observation_space(type("OldSpace", (old_space,), {})())


@case
def space_not_a_space(gym):
    checkers(gym)[1].check_action_space(3)


@case
def space_discrete_with_no_elements(gym):
    checkers(gym)[1].check_action_space(tampered(gym.spaces.Discrete(2), n=np.int64(0)))


@case
def space_discrete_with_a_shape(gym):
    checkers(gym)[1].check_action_space(tampered(gym.spaces.Discrete(2), _shape=(1,)))


@case
def space_multi_discrete_nvec_shape_differs(gym):
    space = tampered(gym.spaces.MultiDiscrete([2, 3]), nvec=np.array([2, 3, 4]))
    checkers(gym)[1].check_action_space(space)


@case
def space_multi_discrete_nvec_zero(gym):
    space = tampered(gym.spaces.MultiDiscrete([2, 3]), nvec=np.array([0, 3]))
    checkers(gym)[1].check_action_space(space)


@case
def space_multi_binary_zero_shape(gym):
    checkers(gym)[1].check_action_space(tampered(gym.spaces.MultiBinary(2), _shape=(0,)))


@case
def space_empty_tuple(gym):
    checkers(gym)[1].check_observation_space(gym.spaces.Tuple(()))


@case
def space_empty_dict(gym):
    checkers(gym)[1].check_observation_space(gym.spaces.Dict({}))


# ---- passive checker: observations -----------------------------------------------------------
def raising_space(spaces):
    """A space whose membership test raises."""

    class Raising(spaces.Space):
        def contains(self, x):
            raise ValueError("cannot tell")

    return Raising()


def _obs_case(name, build_space, obs):
    def misuse(gym):
        checkers(gym)[1].check_obs(obs, build_space(gym.spaces), "step")

    misuse.__name__ = f"obs_{name}"
    return misuse


for _name, _space, _obs in (
    ("discrete_given_a_float", lambda s: s.Discrete(3), 1.0),
    ("box_given_a_list", lambda s: s.Box(0, 1, (2,)), [0.5, 0.5]),
    ("box_wrong_dtype", lambda s: s.Box(0, 1, (2,)), np.zeros(2, np.float64)),
    ("multi_binary_given_a_list", lambda s: s.MultiBinary(2), [0, 1]),
    ("tuple_given_a_list", lambda s: s.Tuple((s.Discrete(2),)), [0]),
    ("tuple_wrong_length", lambda s: s.Tuple((s.Discrete(2),)), (0, 1)),
    ("dict_given_a_list", lambda s: s.Dict(a=s.Discrete(2)), [0]),
    ("dict_wrong_keys", lambda s: s.Dict(a=s.Discrete(2)), {"b": 0}),
    ("outside_the_space", lambda s: s.Discrete(3), 5),
    ("membership_raises", lambda s: raising_space(s), 0),
):
    case(_obs_case(_name, _space, _obs))


@case
def data_reuse_of_observations_and_infos(gym):
    obs, info = np.zeros(2), {}
    checkers(gym)[1].env_data_reuse_passive_checker((obs, info), (obs, info), "reset", "step")


# ---- passive checker: reset ------------------------------------------------------------------
@case
def passive_reset_without_seed_or_options(gym):
    env = scripted_env(gym)
    type(env).reset = lambda self: (np.full(2, 0.5), {})
    checkers(gym)[1].env_reset_passive_checker(env)


@case
def passive_reset_seed_defaults_to_zero(gym):
    env = scripted_env(gym)
    type(env).reset = lambda self, seed=0, options=None: (np.full(2, 0.5), {})
    checkers(gym)[1].env_reset_passive_checker(env)


@case
def passive_reset_returns_obs_only(gym):
    env = scripted_env(gym, resets=[lambda env: np.full(2, 0.5)])
    checkers(gym)[1].env_reset_passive_checker(env)


@case
def passive_reset_returns_a_three_tuple(gym):
    env = scripted_env(gym, resets=[lambda env: (np.full(2, 0.5), {}, None)])
    checkers(gym)[1].env_reset_passive_checker(env)


@case
def passive_reset_info_a_list(gym):
    env = scripted_env(gym, resets=[lambda env: (np.full(2, 0.5), [])])
    checkers(gym)[1].env_reset_passive_checker(env)


# ---- passive checker: step -------------------------------------------------------------------
def _step_case(name, result):
    def misuse(gym):
        env = scripted_env(gym, steps=[lambda env: result])
        env.reset(seed=0)
        checkers(gym)[1].env_step_passive_checker(env, 0)

    misuse.__name__ = f"passive_step_{name}"
    return misuse


_OBS = np.full(2, 0.5)
for _name, _result in (
    ("returns_a_list", [_OBS, 0.0, False, False, {}]),
    ("old_api_done_not_bool", (_OBS, 0.0, 1, {})),
    ("terminated_not_bool", (_OBS, 0.0, 1, False, {})),
    ("truncated_not_bool", (_OBS, 0.0, False, 1, {})),
    ("returns_six_items", (_OBS, 0.0, False, False, {}, None)),
    ("reward_a_string", (_OBS, "1", False, False, {})),
    ("reward_nan", (_OBS, np.nan, False, False, {})),
    ("reward_inf", (_OBS, np.inf, False, False, {})),
    ("info_none", (_OBS, 0.0, False, False, None)),
):
    case(_step_case(_name, _result))


# ---- passive checker: render -----------------------------------------------------------------
def _render_case(name, render_mode, rendered, modes=None):
    def misuse(gym):
        metadata = {"render_modes": modes or [render_mode], "render_fps": 4}
        env = scripted_env(gym, render=rendered, metadata=metadata, render_mode=render_mode)
        checkers(gym)[1].env_render_passive_checker(env)

    misuse.__name__ = f"render_{name}"
    return misuse


_FRAME = np.zeros((4, 4, 3), np.uint8)
for _name, _mode, _rendered in (
    ("human_returns_a_frame", "human", _FRAME),
    ("rgb_array_returns_a_list", "rgb_array", [1]),
    ("rgb_array_wrong_dtype", "rgb_array", _FRAME.astype(np.float32)),
    ("rgb_array_two_axes", "rgb_array", np.zeros((4, 4), np.uint8)),
    ("rgb_array_four_channels", "rgb_array", np.zeros((4, 4, 4), np.uint8)),
    ("depth_array_returns_a_list", "depth_array", [1]),
    ("depth_array_three_axes", "depth_array", np.zeros((4, 4, 3))),
    ("ansi_returns_a_frame", "ansi", _FRAME),
    ("rgb_array_list_returns_a_frame", "rgb_array_list", _FRAME),
):
    case(_render_case(_name, _mode, _rendered))


def _render_metadata_case(name, metadata, render_mode=None):
    def misuse(gym):
        env = scripted_env(gym, metadata=metadata, render_mode=render_mode)
        checkers(gym)[1].env_render_passive_checker(env)

    misuse.__name__ = f"render_metadata_{name}"
    return misuse


for _name, _metadata, _mode in (
    ("without_render_modes", {"render_fps": 4}, None),
    ("render_modes_not_strings", {"render_modes": [1], "render_fps": 4}, None),
    ("render_fps_a_string", {"render_modes": ["ansi"], "render_fps": "4"}, None),
    ("render_fps_zero", {"render_modes": ["ansi"], "render_fps": 0}, None),
    ("no_modes_but_a_render_mode", {"render_modes": [], "render_fps": 4}, "ansi"),
):
    case(_render_metadata_case(_name, _metadata, _mode))
