"""The ``palaestra`` command line: ``list``, ``run``, errors and ``python -m`` entry points."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import palaestra as gym
from palaestra.cli import COMMANDS, build_parser, main

REPO_ROOT = Path(__file__).resolve().parents[2]
EPISODE_LINE = re.compile(r"^episode (\d+): return=(\S+) length=(\d+)$")
TOTAL_LINE = re.compile(r"^total: (\d+) steps in \d+\.\d{3} s \([\d,]+ steps/s\)$")


def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def episode_lines(out: str) -> list[tuple[int, float, int]]:
    lines = out.splitlines()[:-1]
    return [(int(m[1]), float(m[2]), int(m[3])) for m in map(EPISODE_LINE.match, lines) if m]


# --- command plumbing ---------------------------------------------------------------------


@pytest.mark.parametrize("module_name", COMMANDS)
def test_every_command_module_provides_add_parser_and_run(module_name):
    module = importlib.import_module(f"palaestra.cli.{module_name}")
    assert callable(module.add_parser)
    assert callable(module.run)


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "list" in out
    assert "run" in out


def test_missing_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exited:
        main([])
    assert exited.value.code == 2
    assert "required: COMMAND" in capsys.readouterr().err


def test_parser_stores_each_command_handler():
    args = build_parser().parse_args(["run", "CartPole-v1"])
    assert args.handler is importlib.import_module("palaestra.cli.run").run


def test_a_module_added_to_commands_becomes_a_subcommand(monkeypatch, capsys):
    hello = types.ModuleType("palaestra.cli.hello")
    hello.add_parser = lambda subparsers: subparsers.add_parser("hello")
    hello.run = lambda args: print(f"hello from {args.command}") or 0
    monkeypatch.setitem(sys.modules, "palaestra.cli.hello", hello)
    monkeypatch.setattr("palaestra.cli.COMMANDS", (*COMMANDS, "hello"))
    assert run_cli(capsys, "hello") == (0, "hello from hello\n", "")


def test_an_error_from_any_command_exits_2(monkeypatch, capsys):
    failing = types.ModuleType("palaestra.cli.failing")
    failing.add_parser = lambda subparsers: subparsers.add_parser("failing")

    def fail(args):
        raise gym.error.DependencyNotInstalled("install palaestra[extra]")

    failing.run = fail
    monkeypatch.setitem(sys.modules, "palaestra.cli.failing", failing)
    monkeypatch.setattr("palaestra.cli.COMMANDS", ("failing",))
    assert run_cli(capsys, "failing") == (
        2,
        "",
        "palaestra failing: error: install palaestra[extra]\n",
    )


# --- list -----------------------------------------------------------------------------------


def test_list_prints_the_registry_like_pprint_registry(capsys):
    status, out, _ = run_cli(capsys, "list")
    assert status == 0
    assert out == gym.pprint_registry(disable_print=True) + "\n"


def test_list_options_pass_through(capsys):
    status, out, _ = run_cli(capsys, "list", "--num-cols", "1", "--exclude", "classic_control")
    expected = gym.pprint_registry(
        num_cols=1, exclude_namespaces=["classic_control"], disable_print=True
    )
    assert status == 0
    assert out == expected + "\n"


def test_list_rejects_a_non_positive_column_count(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["list", "--num-cols", "0"])
    assert exited.value.code == 2
    assert "expected a positive integer, got '0'" in capsys.readouterr().err


# --- run ------------------------------------------------------------------------------------


def test_run_prints_one_line_per_episode_and_a_total(capsys):
    status, out, err = run_cli(capsys, "run", "CartPole-v1", "--episodes", "3", "--seed", "0")
    assert status == 0
    assert err == ""
    lines = out.splitlines()
    assert len(lines) == 4
    episodes = episode_lines(out)
    assert [number for number, _, _ in episodes] == [1, 2, 3]
    total = TOTAL_LINE.match(lines[-1])
    assert total is not None
    assert int(total[1]) == sum(length for _, _, length in episodes)


def test_run_returns_match_a_manual_rollout(capsys):
    _, out, _ = run_cli(capsys, "run", "CartPole-v1", "--episodes", "2", "--seed", "5")
    env = gym.make("CartPole-v1")
    env.action_space.seed(5)
    expected = []
    for episode in (1, 2):
        env.reset(seed=5 if episode == 1 else None)
        episode_return, length, done = 0.0, 0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            episode_return += float(reward)
            length += 1
            done = terminated or truncated
        expected.append((episode, episode_return, length))
    assert episode_lines(out) == expected


def test_run_with_a_seed_is_reproducible(capsys):
    _, first, _ = run_cli(capsys, "run", "CartPole-v1", "--episodes", "3", "--seed", "7")
    _, second, _ = run_cli(capsys, "run", "CartPole-v1", "--episodes", "3", "--seed", "7")
    assert episode_lines(first) == episode_lines(second)


def test_run_max_steps_truncates_episodes(capsys):
    _, out, _ = run_cli(
        capsys, "run", "CartPole-v1", "--episodes", "4", "--seed", "1", "--max-steps", "3"
    )
    assert [length for _, _, length in episode_lines(out)] == [3, 3, 3, 3]


def test_run_unknown_env_suggests_a_name_and_exits_2(capsys):
    status, out, err = run_cli(capsys, "run", "CartPol-v1")
    assert status == 2
    assert out == ""
    assert err == (
        "palaestra run: error: Environment `CartPol` doesn't exist. Did you mean: `CartPole`?\n"
    )


def test_run_unknown_version_exits_2(capsys):
    status, _, err = run_cli(capsys, "run", "CartPole-v9")
    assert status == 2
    assert "Environment version `v9` for environment `CartPole` doesn't exist." in err


def test_run_missing_module_prefix_exits_2(capsys):
    status, _, err = run_cli(capsys, "run", "no_such_plugin_xyz:Env-v0")
    assert status == 2
    assert "No module named 'no_such_plugin_xyz'" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("option", "value"), [("--episodes", "0"), ("--episodes", "two"), ("--max-steps", "-1")]
)
def test_run_rejects_non_positive_counts(capsys, option, value):
    with pytest.raises(SystemExit) as exited:
        main(["run", "CartPole-v1", option, value])
    assert exited.value.code == 2
    assert f"expected a positive integer, got {value!r}" in capsys.readouterr().err


# --- entry points -----------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["palaestra", "palaestra.cli"])
def test_python_dash_m_runs_the_cli(module):
    result = subprocess.run(
        [sys.executable, "-m", module, "run", "CartPole-v1", "--episodes", "1", "--seed", "0"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert EPISODE_LINE.match(result.stdout.splitlines()[0])


def test_python_dash_m_unknown_env_exits_2_without_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "palaestra", "run", "CartPol-v1"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "Did you mean: `CartPole`?" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.fixture
def folder_module(tmp_path, monkeypatch):
    """A module registering an env, in the current folder (which is not on sys.path)."""
    (tmp_path / "folder_envs.py").write_text(
        "import palaestra as gym\n"
        "gym.register('FolderCartPole-v0', max_episode_steps=5,\n"
        "             entry_point='palaestra.envs.classic_control.cartpole:CartPoleEnv')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "folder_envs", raising=False)
    yield tmp_path
    gym.registry.pop("FolderCartPole-v0", None)
    sys.modules.pop("folder_envs", None)


def test_the_current_folder_is_not_searched_for_modules(folder_module, capsys):
    status = main(["run", "folder_envs:FolderCartPole-v0", "--episodes", "1", "--seed", "0"])
    assert status == 2
    assert "add --import-path ." in capsys.readouterr().err
    assert str(folder_module) not in sys.path


def test_import_path_lets_module_ids_resolve_from_a_folder(folder_module, capsys):
    argv = ["--import-path", ".", "run", "folder_envs:FolderCartPole-v0", "--episodes", "1"]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("episode 1: return=")


def test_version_flag_prints_the_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"palaestra {gym.__version__}\n"
