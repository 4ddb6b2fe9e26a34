"""EnvSpec serialisation and printing, and the registry printout."""

from __future__ import annotations

import json

import pytest

import palaestra as gym
from palaestra.envs.registration import EnvSpec, WrapperSpec, pprint_registry
from tests.envs.test_registration_envs import (
    HERE,
    SCALE_REWARD_ENTRY,
    CounterEnv,
    clean_registry,  # noqa: F401 (autouse fixture)
)

WRAPPER = WrapperSpec("ScaleReward", SCALE_REWARD_ENTRY, {"scale": 0.5})


@pytest.fixture
def full_spec() -> EnvSpec:
    return EnvSpec(
        id="RegTest/Full-v2",
        entry_point=f"{HERE}:CounterEnv",
        reward_threshold=3.0,
        nondeterministic=True,
        max_episode_steps=9,
        order_enforce=False,
        disable_env_checker=True,
        kwargs={"length": 4, "render_mode": "ansi"},
        additional_wrappers=(WRAPPER,),
        vector_entry_point="some.module:VectorCounter",
    )


def test_env_spec_parses_its_id():
    spec = EnvSpec("RegTest/Parsed-v4", entry_point="m:E")
    assert (spec.namespace, spec.name, spec.version) == ("RegTest", "Parsed", 4)


def test_env_spec_defaults():
    spec = EnvSpec("Defaults")
    assert spec == EnvSpec(
        id="Defaults",
        entry_point=None,
        reward_threshold=None,
        nondeterministic=False,
        max_episode_steps=None,
        order_enforce=True,
        disable_env_checker=False,
        kwargs={},
        additional_wrappers=(),
        vector_entry_point=None,
    )


def test_json_round_trip_restores_the_spec(full_spec):
    restored = EnvSpec.from_json(full_spec.to_json())
    assert restored == full_spec
    assert isinstance(restored.additional_wrappers, tuple)
    assert isinstance(restored.additional_wrappers[0], WrapperSpec)


def test_json_leaves_out_the_parsed_id_parts(full_spec):
    assert list(json.loads(full_spec.to_json())) == [
        "id",
        "entry_point",
        "reward_threshold",
        "nondeterministic",
        "max_episode_steps",
        "order_enforce",
        "disable_env_checker",
        "kwargs",
        "additional_wrappers",
        "vector_entry_point",
    ]


def test_to_json_matches_gymnasium(full_spec):
    gymnasium_registration = pytest.importorskip("gymnasium.envs.registration")
    wrapper = gymnasium_registration.WrapperSpec(WRAPPER.name, WRAPPER.entry_point, WRAPPER.kwargs)
    expected = gymnasium_registration.EnvSpec(
        **{**_init_fields(full_spec), "additional_wrappers": (wrapper,)}
    )
    assert full_spec.to_json() == expected.to_json()


def test_to_json_rejects_a_callable_entry_point():
    spec = EnvSpec("RegTest/Callable-v0", entry_point=CounterEnv)
    with pytest.raises(ValueError, match="Callable found in RegTest/Callable-v0 for entry_point"):
        spec.to_json()


def test_from_json_rejects_a_bad_wrapper_spec(full_spec):
    fields = json.loads(full_spec.to_json())
    fields["additional_wrappers"] = [{"name": "W"}]
    with pytest.raises(ValueError, match=r"An issue occurred when trying to make .* a WrapperSpec"):
        EnvSpec.from_json(json.dumps(fields))


def test_from_json_rejects_unknown_fields(full_spec):
    fields = {**json.loads(full_spec.to_json()), "colour": "red"}
    with pytest.raises(ValueError, match=r"An issue occurred when trying to make .* an EnvSpec"):
        EnvSpec.from_json(json.dumps(fields))


def test_pprint_shows_only_fields_off_their_defaults(capsys):
    EnvSpec("RegTest/Short-v0", entry_point="m:E", max_episode_steps=5).pprint()
    assert capsys.readouterr().out == "id=RegTest/Short-v0\nmax_episode_steps=5\n"


def test_pprint_disable_print_returns_the_text(capsys):
    text = EnvSpec("RegTest/Short-v0", entry_point="m:E").pprint(disable_print=True)
    assert text == "id=RegTest/Short-v0"
    assert capsys.readouterr().out == ""


def test_pprint_print_all(full_spec):
    assert full_spec.pprint(disable_print=True, print_all=True) == (
        "id=RegTest/Full-v2\n"
        f"entry_point={HERE}:CounterEnv\n"
        "reward_threshold=3.0\n"
        "nondeterministic=True\n"
        "max_episode_steps=9\n"
        "order_enforce=False\n"
        "disable_env_checker=True\n"
        "additional_wrappers=[\n"
        "\tname=ScaleReward, kwargs={'scale': 0.5}\n"
        "]"
    )


def _init_fields(spec: EnvSpec) -> dict:
    return {
        "id": spec.id,
        "entry_point": spec.entry_point,
        "reward_threshold": spec.reward_threshold,
        "nondeterministic": spec.nondeterministic,
        "max_episode_steps": spec.max_episode_steps,
        "order_enforce": spec.order_enforce,
        "disable_env_checker": spec.disable_env_checker,
        "kwargs": spec.kwargs,
        "additional_wrappers": spec.additional_wrappers,
        "vector_entry_point": spec.vector_entry_point,
    }


PPRINT_SPECS = [
    EnvSpec("RegTest/Short-v0", entry_point="m:E"),
    EnvSpec("RegTest/Short-v0", entry_point="m:E", nondeterministic=True, order_enforce=False),
    EnvSpec("Empty", entry_point="m:E", additional_wrappers=()),
]


@pytest.mark.parametrize("spec", [*PPRINT_SPECS, "full"])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"include_entry_points": True},
        {"print_all": True},
        {"print_all": True, "include_entry_points": True},
    ],
)
def test_pprint_matches_gymnasium(spec, options, full_spec):
    gymnasium_registration = pytest.importorskip("gymnasium.envs.registration")
    spec = full_spec if spec == "full" else spec
    wrappers = tuple(
        gymnasium_registration.WrapperSpec(w.name, w.entry_point, w.kwargs)
        for w in spec.additional_wrappers
    )
    expected = gymnasium_registration.EnvSpec(
        **{**_init_fields(spec), "additional_wrappers": wrappers}
    )
    assert spec.pprint(disable_print=True, **options) == expected.pprint(
        disable_print=True, **options
    )


def test_env_spec_make_builds_the_env():
    env = EnvSpec("RegTest/Made-v0", entry_point=CounterEnv, kwargs={"length": 2}).make()
    assert env.unwrapped.length == 2


# --- pprint_registry ---------------------------------------------------------------------------

REGISTRY_SPECS = {
    spec.id: spec
    for spec in [
        EnvSpec("CartPole-v1", "palaestra.envs.classic_control.cartpole:CartPoleEnv"),
        EnvSpec("CartPole-v0", "palaestra.envs.classic_control.cartpole:CartPoleEnv"),
        EnvSpec("Acrobot-v1", "palaestra.envs.classic_control.acrobot:AcrobotEnv"),
        EnvSpec("Pendulum-v1", "palaestra.envs.classic_control.pendulum:PendulumEnv"),
        EnvSpec("Plugin-v0", "plugin.module:Env"),
        EnvSpec("Flat-v0", "flat:Env"),
        EnvSpec("Callable-v0", CounterEnv),
        EnvSpec("RegTest/Alpha-v0", "m:E"),
        EnvSpec("RegTest/LongerName-v3", "m:E"),
    ]
}


def test_pprint_registry_groups_by_namespace():
    assert pprint_registry(REGISTRY_SPECS, num_cols=2, disable_print=True) == (
        "===== classic_control =====\n"
        "Acrobot-v1 CartPole-v0\n"
        "CartPole-v1 Pendulum-v1\n"
        "===== module =====\n"
        "Plugin-v0\n"
        "===== Flat =====\n"
        "Flat-v0\n"
        "===== None =====\n"
        "Callable-v0\n"
        "===== RegTest =====\n"
        "RegTest/Alpha-v0 RegTest/LongerName-v3"
    )


def test_pprint_registry_excludes_namespaces():
    text = pprint_registry(
        REGISTRY_SPECS, exclude_namespaces=["classic_control", "RegTest"], disable_print=True
    )
    assert "classic_control" not in text
    assert "RegTest" not in text
    assert "===== module =====" in text


def test_pprint_registry_prints_the_global_registry_by_default(capsys):
    gym.pprint_registry()
    out = capsys.readouterr().out
    assert out.startswith("===== classic_control =====\n")
    assert "CartPole-v1" in out


@pytest.mark.parametrize("num_cols", [1, 2, 3, 5])
@pytest.mark.parametrize("exclude", [None, ["module"]])
def test_pprint_registry_matches_gymnasium(num_cols, exclude):
    gymnasium_registration = pytest.importorskip("gymnasium.envs.registration")
    gymnasium_specs = {
        key: gymnasium_registration.EnvSpec(spec.id, spec.entry_point)
        for key, spec in REGISTRY_SPECS.items()
    }
    options = {"num_cols": num_cols, "exclude_namespaces": exclude, "disable_print": True}
    assert pprint_registry(REGISTRY_SPECS, **options) == gymnasium_registration.pprint_registry(
        gymnasium_specs, **options
    )
