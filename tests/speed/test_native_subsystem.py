"""The native batching subsystem: where it lives, its accelerator choice, its random streams."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import palaestra as gym
from palaestra.vector import native
from palaestra.vector.native import NativeVectorEnv, accelerator

NUMBA = accelerator.numba_available()
ACCELERATORS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(not NUMBA, reason="numba"))]


def test_every_classic_vector_entry_point_is_a_native_vector_env(env_id):
    envs = gym.make_vec(env_id, 2, vectorization_mode="vector_entry_point")
    assert isinstance(envs, NativeVectorEnv)


def test_the_subsystem_imports_nothing_of_an_env_family():
    package = Path(native.__file__).parent
    imported = set()
    for module in package.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    assert "palaestra.vector.native.base" in imported  # the walk sees the package's imports
    assert not [name for name in imported if name.startswith("palaestra.envs")]


def test_auto_is_numba_when_installed(monkeypatch):
    monkeypatch.delenv(accelerator.ACCELERATOR_VARIABLE, raising=False)
    monkeypatch.setattr(accelerator, "numba_available", lambda: True)
    assert accelerator.resolve_accelerator(None) == "numba"
    assert accelerator.resolve_accelerator("auto") == "numba"


def test_auto_is_numpy_without_numba(monkeypatch):
    monkeypatch.delenv(accelerator.ACCELERATOR_VARIABLE, raising=False)
    monkeypatch.setattr(accelerator, "numba_available", lambda: False)
    assert accelerator.resolve_accelerator(None) == "numpy"


def test_explicit_numba_without_numba_names_the_extra(monkeypatch):
    monkeypatch.setattr(accelerator, "numba_available", lambda: False)
    with pytest.raises(gym.error.DependencyNotInstalled, match=r"palaestra\[fast\]"):
        accelerator.resolve_accelerator("numba")


def test_the_environment_variable_overrides_auto(monkeypatch):
    monkeypatch.setenv(accelerator.ACCELERATOR_VARIABLE, "numpy")
    envs = gym.make_vec("CartPole-v1", 2)
    assert envs.accelerator == "numpy"


@pytest.mark.skipif(not NUMBA, reason="needs numba")
def test_default_make_vec_starts_on_numpy_and_is_set_to_move_to_numba(monkeypatch):
    monkeypatch.delenv(accelerator.ACCELERATOR_VARIABLE, raising=False)
    envs = gym.make_vec("Acrobot-v1", 64)
    assert envs.accelerator == "numpy"
    assert envs._promotion is not None


def test_cartpole_vector_env_is_importable_at_gymnasiums_path():
    from palaestra.envs.classic_control.cartpole import CartPoleVectorEnv
    from palaestra.envs.classic_control.vector import CartPoleVectorEnv as native_class

    assert CartPoleVectorEnv is native_class


def test_cartpole_vector_env_takes_gymnasiums_parameters_in_order_then_ours_by_keyword():
    from palaestra.envs.classic_control.cartpole import CartPoleVectorEnv

    parameters = list(inspect.signature(CartPoleVectorEnv).parameters.values())
    gymnasium_names = ["num_envs", "max_episode_steps", "render_mode", "sutton_barto_reward"]
    assert [p.name for p in parameters[:4]] == gymnasium_names
    assert all(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in parameters[4:])
    # ``**parameters``: the per-sub-env physics (gravity=..., masspole=...).
    assert {p.name for p in parameters[4:]} == {
        "autoreset_mode",
        "accelerator",
        "seeding",
        "parameters",
    }


# np_random: a snapshot at every size ---------------------------------------------------------


@pytest.mark.parametrize("accelerator_name", ACCELERATORS)
@pytest.mark.parametrize("num_envs", [4, 300])
def test_drawing_from_np_random_never_advances_a_sub_envs_stream(num_envs, accelerator_name):
    def after_a_reset_mask(draw_first: bool) -> np.ndarray:
        envs = gym.make_vec(
            "CartPole-v1",
            num_envs,
            vectorization_mode="vector_entry_point",
            accelerator=accelerator_name,
        )
        envs.reset(seed=7)
        if draw_first:
            envs.np_random[0].random(10)
        mask = np.zeros(num_envs, dtype=np.bool_)
        mask[0] = True
        return envs.reset(options={"reset_mask": mask})[0][0]

    np.testing.assert_array_equal(after_a_reset_mask(True), after_a_reset_mask(False))


@pytest.mark.parametrize("accelerator_name", ACCELERATORS)
@pytest.mark.parametrize("num_envs", [4, 300])
def test_np_random_is_at_the_position_of_each_sync_sub_envs_generator(num_envs, accelerator_name):
    kwargs = {"torque_noise_max": 0.1}
    native = gym.make_vec(
        "Acrobot-v1",
        num_envs,
        vectorization_mode="vector_entry_point",
        accelerator=accelerator_name,
        **kwargs,
    )
    sync = gym.make_vec("Acrobot-v1", num_envs, vectorization_mode="sync", **kwargs)
    actions = np.zeros(num_envs, dtype=np.int64)
    for envs in (native, sync):
        envs.reset(seed=3)
        envs.step(actions)
    for got, want in zip(native.np_random, sync.np_random, strict=True):
        assert got.bit_generator.state == want.bit_generator.state
    assert native.np_random_seed == sync.np_random_seed


def test_np_random_is_none_for_sub_envs_never_reset():
    envs = gym.make_vec("Pendulum-v1", 3, vectorization_mode="vector_entry_point")
    assert envs.np_random == (None, None, None)


# numba: palaestra's compilation stays inside palaestra's functions -----------------------------

_USER_NUMBA_PROGRAM = textwrap.dedent(
    """
    import json, sys
    import numba
    import numpy as np

    SOURCE = '''
    def square(values):
        out = np.empty_like(values)
        for i in range(values.size):
            out[i] = values[i] ** 2
        return out

    def power(values, exponent):
        out = np.empty_like(values)
        for i in range(values.size):
            out[i] = values[i] ** exponent
        return out

    def transposed(pair):
        return pair.T

    def as_any(values):
        return np.asanyarray(values)
    '''

    def compile_user_functions():
        namespace = {"np": np}
        exec(SOURCE, namespace)
        values = np.random.default_rng(0).normal(size=100_000)
        square = numba.njit(namespace["square"])
        power = numba.njit(namespace["power"])
        outcome = {
            "square": square(values).tobytes().hex(),
            "power3": power(values, 3).tobytes().hex(),
            "square_ir": "".join(square.inspect_llvm().values()).count("@pow"),
        }
        for name, argument in (("transposed", (1.0, 2.0)), ("as_any", values)):
            try:
                numba.njit(namespace[name])(argument)
                outcome[name] = "compiled"
            except numba.core.errors.TypingError:
                outcome[name] = "TypingError"
        return outcome

    before = compile_user_functions()
    import palaestra.envs.classic_control.vector._compiled  # noqa: F401
    from palaestra.vector.native.compiled import njit

    # palaestra compiles its own functions with its rewrites: squares, transposes, asanyarray.
    njit(lambda pair: pair.T[0] ** 2 + np.asanyarray(np.ones(2))[0])((3.0, 4.0))
    after = compile_user_functions()
    print(json.dumps({"before": before, "after": after}))
    """
)


@pytest.mark.skipif(not NUMBA, reason="needs numba")
def test_importing_the_accelerator_changes_no_user_numba_function(tmp_path):
    import json

    result = subprocess.run(
        [sys.executable, "-c", _USER_NUMBA_PROGRAM],
        capture_output=True,
        text=True,
        check=True,
        env={**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)},
    )
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["after"] == outcome["before"]
    assert outcome["before"]["transposed"] == "TypingError"
    assert outcome["before"]["as_any"] == "TypingError"


@pytest.mark.skipif(not NUMBA, reason="needs numba")
def test_palaestra_compiled_squares_round_as_python_while_numba_multiplies():
    import numba

    from palaestra.vector.native.compiled import njit

    def square(value):
        return value**2

    values = np.random.default_rng(1).normal(size=20_000).tolist()
    python = [value**2 for value in values]
    ours = njit(square)
    numbas = numba.njit(square)
    assert [ours(value) for value in values] == python
    assert sum(numbas(value) != want for value, want in zip(values, python)) > 0


@pytest.mark.slow
@pytest.mark.skipif(not NUMBA, reason="needs numba")
def test_compiled_steps_load_from_the_disk_cache_in_a_new_process(tmp_path):
    program = (
        "from palaestra.envs.classic_control.dynamics.acrobot import AcrobotParams\n"
        "from palaestra.envs.classic_control.vector._compiled import compile_acrobot\n"
        "import numpy as np\n"
        "advance = compile_acrobot(AcrobotParams())\n"
        "advance(np.zeros((2, 4)), np.zeros(2))\n"
        "print(sum(advance.stats.cache_hits.values()))\n"
    )
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, check=True, env=env
        ).stdout.split()[-1]
        for _ in range(2)
    ]
    assert runs == ["0", "1"]


def test_cartpoles_vector_entry_point_is_at_gymnasiums_path():
    import gymnasium

    ours = gym.spec("CartPole-v1").vector_entry_point
    theirs = gymnasium.spec("CartPole-v1").vector_entry_point
    assert ours.removeprefix("palaestra.") == theirs.removeprefix("gymnasium.")
