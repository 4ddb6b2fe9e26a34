"""The Atari ids: every one ale-py registers, with its settings, registered without ale_py."""

from __future__ import annotations

import subprocess
import sys

import ale_py
import ale_py.roms
import gymnasium
import pytest

import palaestra
from palaestra.envs._atari_ids import ROM_IDS
from palaestra.envs.atari import AtariEnv


def ale_py_specs():
    return {
        env_id: spec
        for env_id, spec in gymnasium.registry.items()
        if spec.entry_point == "ale_py.env:AtariEnv"
    }


def test_every_id_ale_py_registers_is_registered_with_its_kwargs():
    ours = {env_id: palaestra.spec(env_id).kwargs for env_id in ale_py_specs()}

    assert ours == {env_id: spec.kwargs for env_id, spec in ale_py_specs().items()}
    assert len(ours) == 352


def test_no_other_atari_ids_are_registered():
    atari = {
        env_id
        for env_id, spec in palaestra.registry.items()
        if str(spec.entry_point).startswith("palaestra.envs.atari")
    }

    assert atari == set(ale_py_specs())


def test_the_ids_keep_ale_pys_time_limits_and_order():
    theirs = list(ale_py_specs())
    ours = [env_id for env_id in palaestra.registry if env_id in ale_py_specs()]

    assert ours == theirs
    assert {palaestra.spec(env_id).max_episode_steps for env_id in ours} == {None}


def test_the_rom_list_is_the_one_ale_py_ships():
    assert list(ROM_IDS) == ale_py.roms.get_all_rom_ids()


def test_importing_palaestra_does_not_import_ale_py():
    script = "import sys, palaestra; print('ale_py' in sys.modules, len(palaestra.registry))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)

    imported, count = result.stdout.split()
    assert imported == "False" and int(count) > 352


def test_register_envs_of_ale_py_is_accepted_and_changes_nothing():
    before = dict(palaestra.registry)
    palaestra.register_envs(ale_py)

    assert dict(palaestra.registry) == before


def test_make_builds_palaestras_own_env_with_gymnasiums_wrappers():
    env = palaestra.make("ALE/Pong-v5")

    assert type(env.unwrapped) is AtariEnv
    assert str(env) == "<OrderEnforcing<PassiveEnvChecker<AtariEnv<ALE/Pong-v5>>>>"
    env.close()


def test_make_without_ale_py_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ale_py", None)  # makes `import ale_py` fail

    with pytest.raises(palaestra.error.DependencyNotInstalled, match=r"palaestra\[atari\]"):
        palaestra.make("ALE/Pong-v5")
