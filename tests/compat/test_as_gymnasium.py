"""``python -m palaestra.compat`` / ``as_gymnasium()``: Gymnasium programs on palaestra objects.

Each program runs in a fresh interpreter (the alias is process-wide, so never in the test
process itself). The programs in ``tests/compat/programs/`` are written for the real Gymnasium
(``import gymnasium``) and print a JSON line saying where their objects came from.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent / "programs"

pytest.importorskip("stable_baselines3")
pytest.importorskip("torch")


def _python(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    env.pop("PALAESTRA_AS_GYMNASIUM", None)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout
    )


def _report(*args: str) -> dict:
    result = _python("-m", "palaestra.compat", *args)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_cleanrl_style_dqn_with_sb3s_replay_buffer_runs_on_palaestra_objects():
    # Before: with `import palaestra as gym`, SB3's ReplayBuffer raised "Box(...) observation
    # space is not supported"; under the alias `gymnasium.spaces.Box` is palaestra's Box.
    report = _report(str(PROGRAMS / "dqn_cleanrl_style.py"), "--total-timesteps", "400")
    assert report["gymnasium"] == "palaestra"
    assert report["env"] == "palaestra.envs.classic_control.cartpole"
    assert report["space"] == "palaestra.spaces.box"
    assert report["episodes"] > 0 and report["updates"] > 0 and report["loss_finite"]


def test_sb3s_ppo_trains_on_envs_made_by_gymnasium_make():
    report = _report(str(PROGRAMS / "sb3_ppo.py"), "dummy")
    assert report == {
        "gymnasium": "palaestra",
        "workers": ["palaestra.envs.classic_control.cartpole"] * 2,
        "timesteps": 256,
        "space": "palaestra.spaces.box",
    }


@pytest.mark.slow
def test_sb3s_ppo_on_spawned_subprocess_workers_gets_palaestra_envs_in_every_worker():
    report = _report(str(PROGRAMS / "sb3_ppo.py"), "subprocess")
    assert report["workers"] == ["palaestra.envs.classic_control.cartpole"] * 2
    assert report["timesteps"] == 256


WORKER_PROBE = """
import multiprocessing, subprocess, sys
from palaestra.compat import as_gymnasium

def gymnasium_name():
    import gymnasium
    return gymnasium.__name__

if __name__ == "__main__":
    as_gymnasium()
    names = []
    for method in ("spawn", "forkserver", "fork"):
        with multiprocessing.get_context(method).Pool(1) as pool:
            names.append(pool.apply(gymnasium_name))
    child = "import gymnasium; print(gymnasium.__name__)"
    names.append(subprocess.run([sys.executable, "-c", child], capture_output=True,
                                text=True).stdout.strip())
    print(names)
"""


def test_worker_processes_of_every_start_method_import_palaestra_as_gymnasium(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(WORKER_PROBE)
    result = _python(str(probe))
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == str(["palaestra"] * 4)


def test_submodules_are_palaestras_own_module_objects():
    code = (
        "from palaestra.compat import as_gymnasium; as_gymnasium()\n"
        "import gymnasium.wrappers.vector, gymnasium.spaces.utils, palaestra\n"
        "from gymnasium.vector import SyncVectorEnv\n"
        "print(gymnasium.wrappers.vector is palaestra.wrappers.vector,"
        " SyncVectorEnv is palaestra.vector.SyncVectorEnv,"
        " gymnasium.spaces.utils.flatdim is palaestra.spaces.utils.flatdim,"
        " palaestra.spaces.__spec__.name)"
    )
    result = _python("-c", code)
    assert result.stdout.split() == ["True", "True", "True", "palaestra.spaces"], result.stderr


def test_as_gymnasium_after_the_real_gymnasium_was_imported_raises_naming_the_fix():
    code = "import gymnasium\nfrom palaestra.compat import as_gymnasium\nas_gymnasium()"
    result = _python("-c", code)
    assert result.returncode == 1
    assert "RuntimeError: the real gymnasium is already imported" in result.stderr
    assert "python -m palaestra.compat script.py" in result.stderr


def test_to_gymnasium_refuses_while_gymnasium_is_palaestra():
    code = (
        "from palaestra.compat import as_gymnasium, to_gymnasium; as_gymnasium()\n"
        "import palaestra\nto_gymnasium(palaestra.make('CartPole-v1'))"
    )
    result = _python("-c", code)
    assert "RuntimeError: palaestra.compat.as_gymnasium() is active" in result.stderr


def test_the_command_without_a_program_prints_its_usage_and_exits_2():
    result = _python("-m", "palaestra.compat")
    assert result.returncode == 2
    assert "usage: python -m palaestra.compat (SCRIPT.py | -m MODULE) [ARGS ...]" in result.stderr


def test_the_command_runs_a_module_with_m():
    result = _python("-m", "palaestra.compat", "-m", "tests.compat.programs.which_gymnasium")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["palaestra", "True"]


REJECTED_BY_SB3 = {
    "env": (
        "import palaestra as gym\nfrom stable_baselines3 import PPO\n"
        "PPO('MlpPolicy', gym.make('CartPole-v1'))"
    ),
    "space in the replay buffer": (
        "import palaestra as gym\nfrom stable_baselines3.common.buffers import ReplayBuffer\n"
        "env = gym.make('CartPole-v1')\n"
        "ReplayBuffer(10, env.observation_space, env.action_space, 'cpu')"
    ),
}


@pytest.mark.parametrize("program", REJECTED_BY_SB3.values(), ids=REJECTED_BY_SB3)
def test_sb3_rejecting_a_palaestra_object_ends_with_a_pointer_to_compat(program):
    # Before: SB3's error spoke of OpenAI Gym (or an unsupported Box) and stopped there.
    result = _python("-c", program)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("palaestra: `stable_baselines3` was given a palaestra object")
    assert "python -m palaestra.compat script.py" in last
    assert "palaestra.compat.to_gymnasium(env)" in last


def test_an_unrelated_error_gets_no_pointer():
    result = _python("-c", "import palaestra\nraise ValueError('observation out of range')")
    assert result.stderr.strip().splitlines()[-1] == "ValueError: observation out of range"


def test_a_child_process_still_runs_the_sitecustomize_the_alias_shadows(tmp_path):
    own = tmp_path / "site"
    own.mkdir()
    marker = tmp_path / "ran"
    # It runs in the parent (plain start-up) and must run again in the aliased child.
    (own / "sitecustomize.py").write_text(
        f"import os\nopen({str(marker)!r}, 'a').write(os.environ.get("
        "'PALAESTRA_AS_GYMNASIUM', 'parent') + '\\n')\n"
    )
    code = (
        "import subprocess, sys\nfrom palaestra.compat import as_gymnasium\nas_gymnasium()\n"
        "child = 'import gymnasium; print(gymnasium.__name__)'\n"
        "print(subprocess.run([sys.executable, '-c', child], capture_output=True,"
        " text=True).stdout.strip())"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(own)])}
    env.pop("PALAESTRA_AS_GYMNASIUM", None)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.stdout.strip() == "palaestra", result.stderr[-2000:]
    assert marker.read_text().split() == ["parent", "1"]
