"""``palaestra train`` and ``palaestra eval``: smoke runs with tiny budgets."""

import json
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch")

from palaestra.cli import main

TINY = ["--steps", "512", "--eval-episodes", "2", "--no-progress"]


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    assert main(["train", "CartPole-v1", "--out", str(out), "--num-envs", "4", *TINY]) == 0
    return out


def test_train_writes_every_artifact(trained_run):
    names = {path.name for path in trained_run.iterdir()}
    assert {"metrics.csv", "model.pt", "learning_curve.png", "summary.json"} <= names
    assert "agent-episode-0.mp4" in names


def test_train_writes_periodic_checkpoints(trained_run):
    # One checkpoint per update of 4 envs x 32 steps.
    names = sorted(p.name for p in (trained_run / "checkpoints").iterdir())
    assert names == ["step_128.pt", "step_256.pt", "step_384.pt", "step_512.pt"]


def test_metrics_csv_has_one_row_per_update_and_evaluations(trained_run):
    lines = (trained_run / "metrics.csv").read_text().splitlines()
    assert lines[0].startswith("global_step,charts/episodes,charts/episodic_return")
    # 512 steps of 4 envs x 32 steps = 4 updates, plus the final evaluation row.
    assert len(lines) == 1 + 4 + 1


def test_summary_records_steps_and_evaluation(trained_run):
    summary = json.loads((trained_run / "summary.json").read_text())
    assert summary["env_id"] == "CartPole-v1"
    assert summary["steps"] == 512
    assert summary["eval_episodes"] == 2


def test_train_prints_a_summary(tmp_path, capsys):
    main(["train", "CartPole-v1", "--out", str(tmp_path), "--no-video", *TINY])
    out = capsys.readouterr().out
    assert out.startswith("trained ppo on CartPole-v1: 512 steps in ")
    assert f"artifacts in {tmp_path}" in out


def test_eval_prints_mean_and_std(trained_run, capsys):
    assert main(["eval", str(trained_run), "--episodes", "3"]) == 0
    out = capsys.readouterr().out
    pattern = r"mean return over 3 episodes \(deterministic\): \d+\.\d\d ± \d+\.\d\d\n"
    assert re.fullmatch(pattern, out), out


def test_eval_of_the_model_file_equals_eval_of_its_run_folder(trained_run, capsys):
    assert main(["eval", str(trained_run), "--episodes", "2", "--deterministic"]) == 0
    from_folder = capsys.readouterr().out
    assert main(["eval", str(trained_run / "model.pt"), "--episodes", "2", "--deterministic"]) == 0
    assert capsys.readouterr().out == from_folder


def test_eval_of_a_missing_run_is_a_clear_error(tmp_path, capsys):
    assert main(["eval", str(tmp_path / "nothing")]) == 2
    assert "No checkpoint at" in capsys.readouterr().err


def test_train_reinforce(tmp_path, capsys):
    args = ["train", "CartPole-v1", "--algo", "reinforce", "--out", str(tmp_path), "--no-video"]
    assert main([*args, *TINY]) == 0
    assert "trained reinforce on CartPole-v1" in capsys.readouterr().out


def test_train_a_custom_env_by_module_id(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parents[2]))
    args = ["train", "examples.inventory_env:InventoryTrading-v0", "--out", str(tmp_path)]
    assert main([*args, "--no-video", *TINY]) == 0
    assert "on InventoryTrading-v0" in capsys.readouterr().out


def test_missing_torch_names_the_install_commands(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    assert main(["train", "CartPole-v1", "--out", str(tmp_path), *TINY]) == 2
    err = capsys.readouterr().err
    assert "pip install torch==2.13.0" in err
    assert "palaestra[train]" in err


def test_unknown_algo_is_rejected(capsys):
    with pytest.raises(SystemExit):
        main(["train", "CartPole-v1", "--algo", "a2c"])
    assert "invalid choice: 'a2c'" in capsys.readouterr().err


def test_train_with_diagnostics(tmp_path, capsys):
    args = ["train", "CartPole-v1", "--diagnostics", "--out", str(tmp_path), "--no-video"]
    assert main([*args, *TINY]) == 0


def test_unavailable_device_is_a_usage_error(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    assert main(["train", "CartPole-v1", "--device", "cuda", "--out", str(tmp_path), *TINY]) == 2
    assert "CUDA is not available" in capsys.readouterr().err


def test_missing_matplotlib_skips_the_plot_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.warns(UserWarning, match="Skipping the learning curve"):
        assert main(["train", "CartPole-v1", "--out", str(tmp_path), "--no-video", *TINY]) == 0
    assert not (tmp_path / "learning_curve.png").exists()
    assert (tmp_path / "model.pt").exists()


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_an_invalid_device_is_one_clear_line(tmp_path, capsys):
    # Before: --device tpu gave a 23-line torch traceback.
    assert main(["train", "CartPole-v1", "--device", "tpu", "--out", str(tmp_path), *TINY]) == 2
    assert "--device: Unknown device 'tpu'; use 'cpu', 'cuda'" in one_error_line(capsys)


def test_an_out_that_is_a_file_is_one_clear_line(tmp_path, capsys):
    # Before: FileExistsError traceback.
    target = tmp_path / "taken"
    target.write_text("")
    assert main(["train", "CartPole-v1", "--out", str(target), *TINY]) == 2
    assert "is a file, not a folder" in one_error_line(capsys)


def test_set_overrides_a_hyper_parameter(tmp_path, capsys):
    args = ["train", "CartPole-v1", "--out", str(tmp_path), "--no-video", *TINY]
    assert main([*args, "--set", "learning_rate=5e-4", "--set", "n_epochs=3"]) == 0
    from palaestra.train.checkpoint import load_state

    config = load_state(tmp_path / "model.pt")["config"]
    assert (config["learning_rate"], config["n_epochs"], config["n_steps"]) == (5e-4, 3, 32)


def test_an_unknown_hyper_parameter_is_one_line_naming_it(tmp_path, capsys):
    args = ["train", "CartPole-v1", "--out", str(tmp_path), "--set", "n_step=3", *TINY]
    assert main(args) == 2
    assert "unknown ppo hyper-parameter(s) ['n_step']; valid: num_envs" in one_error_line(capsys)


def test_a_config_file_sets_hyper_parameters_and_set_wins(tmp_path, capsys):
    config = tmp_path / "ppo.toml"
    config.write_text("[hyperparameters]\nn_epochs = 2\nlearning_rate = 2e-4\n")
    out = tmp_path / "run"
    args = ["train", "CartPole-v1", "--out", str(out), "--no-video", "--config", str(config)]
    assert main([*args, "--set", "n_epochs=4", *TINY]) == 0
    from palaestra.train.checkpoint import load_state

    saved = load_state(out / "model.pt")["config"]
    assert (saved["learning_rate"], saved["n_epochs"]) == (2e-4, 4)


def test_a_broken_config_file_is_one_line(tmp_path, capsys):
    config = tmp_path / "bad.toml"
    config.write_text("n_epochs = = 2\n")
    assert main(["train", "CartPole-v1", "--config", str(config), *TINY]) == 2
    assert "is not valid TOML" in one_error_line(capsys)


def test_resume_continues_a_run_to_a_new_budget(tmp_path, capsys):
    # Before: "1024 steps in 0.3 s": the run's total with only this segment's time.
    out = str(tmp_path / "run")
    assert main(["train", "CartPole-v1", "--out", out, "--no-video", *TINY]) == 0
    capsys.readouterr()
    assert main(["train", "--resume", out, "--steps", "1024", "--no-progress"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("trained ppo on CartPole-v1: 512 steps (512 to 1024, resumed) in ")


def test_retraining_into_a_run_folder_needs_overwrite(trained_run, capsys):
    assert main(["train", "CartPole-v1", "--out", str(trained_run), *TINY]) == 2
    assert "already holds a run" in one_error_line(capsys)


def test_eval_falls_back_to_the_newest_checkpoint(tmp_path, capsys):
    # Before: after Ctrl-C (no model.pt) eval RUN could not run.
    out = tmp_path / "run"
    assert main(["train", "CartPole-v1", "--out", str(out), "--no-video", *TINY]) == 0
    (out / "model.pt").unlink()
    capsys.readouterr()
    assert main(["eval", str(out), "--episodes", "2"]) == 0
    captured = capsys.readouterr()
    assert "using the newest checkpoint" in captured.err and "step_512.pt" in captured.err
    assert captured.out.startswith("mean return over 2 episodes (deterministic): ")


def test_eval_names_the_stochastic_mode_when_asked(trained_run, capsys):
    # Before: eval sampled actions by default and did not say so.
    assert main(["eval", str(trained_run), "--episodes", "2", "--stochastic"]) == 0
    assert capsys.readouterr().out.startswith("mean return over 2 episodes (stochastic): ")


def test_train_on_gridworld_dict_observations(tmp_path, capsys):
    # Before: `axis 0 is out of bounds for array of dimension 0`.
    import palaestra as gym
    from tests.train.envs import GridWorldEnv

    gym.register("GridWorldTest-v0", entry_point=GridWorldEnv, max_episode_steps=50)
    try:
        args = ["train", "GridWorldTest-v0", "--out", str(tmp_path), "--no-video", *TINY]
        assert main([*args, "--set", "n_steps=32"]) == 0
    finally:
        gym.registry.pop("GridWorldTest-v0")
    assert "trained ppo on GridWorldTest-v0: 512 steps" in capsys.readouterr().out


@pytest.mark.parametrize("algo, env_id", [("dqn", "CartPole-v1"), ("sac", "Pendulum-v1")])
def test_train_dqn_and_sac(tmp_path, capsys, algo, env_id):
    args = ["train", env_id, "--algo", algo, "--out", str(tmp_path), "--no-video", *TINY]
    small = ["--set", "learning_starts=100", "--set", "batch_size=16", "--set", "hidden_sizes=[16]"]
    if algo == "dqn":
        small += ["--set", "gradient_steps=1", "--set", "train_freq=4"]
    assert main([*args, "--steps", "300", *small]) == 0
    assert main(["eval", str(tmp_path), "--episodes", "2"]) == 0
    out = capsys.readouterr().out
    assert f"trained {algo} on {env_id}: 300 steps" in out


def test_the_readme_first_command_writes_a_curve_and_a_checkpoint(tmp_path, capsys):
    # Before: one evaluation dot and no checkpoint (the run stopped before the first).
    out = tmp_path / "run"
    assert main(["train", "CartPole-v1", "--out", str(out), "--no-video", "--no-progress"]) == 0
    from palaestra.train.metrics import read_metrics

    evaluations = [row for row in read_metrics(out / "metrics.csv") if "eval_mean" in row]
    assert len(evaluations) >= 3
    assert len(list((out / "checkpoints").glob("step_*.pt"))) >= 1
    assert (out / "learning_curve.png").is_file()


EVIL_MODULE = """
import pathlib
pathlib.Path(__file__).with_name("PWNED").write_text("code from the run folder ran")
"""


@pytest.fixture
def run_naming(tmp_path, monkeypatch):
    """A trained run folder whose settings.json names the given env id."""

    def make(env_id):
        out = tmp_path / "run"
        assert main(["train", "CartPole-v1", "--out", str(out), "--no-video", *TINY]) == 0
        settings = json.loads((out / "settings.json").read_text())
        (out / "settings.json").write_text(json.dumps(dict(settings, env_id=env_id)))
        return out

    return make


def test_resume_refuses_an_env_id_that_imports_this(run_naming, capsys, monkeypatch):
    # Before: `--resume DIR` with "env_id": "this:CartPole-v1" printed the Zen of Python.
    monkeypatch.delitem(sys.modules, "this", raising=False)
    out = run_naming("this:CartPole-v1")
    capsys.readouterr()
    assert main(["train", "--resume", str(out), "--steps", "1024", "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert "this" not in sys.modules and "Zen" not in captured.out
    assert "names env id 'this:CartPole-v1', which would import module 'this'" in captured.err
    assert "--allow-import" in captured.err and captured.err.count("\n") == 1


def test_resume_imports_nothing_from_the_run_folder(run_naming, capsys, monkeypatch):
    # Before: `cd run && python -m palaestra train --resume .` ran the folder's evilmod.py.
    out = run_naming("evilmod:CartPole-v1")
    (out / "evilmod.py").write_text(EVIL_MODULE)
    monkeypatch.chdir(out)
    monkeypatch.syspath_prepend(str(out))  # as `python -m` puts the working folder first
    monkeypatch.delitem(sys.modules, "evilmod", raising=False)
    assert main(["train", "--resume", ".", "--steps", "1024", "--no-progress"]) == 2
    assert not (out / "PWNED").exists() and "evilmod" not in sys.modules
    assert "would import module 'evilmod'; nothing was run" in capsys.readouterr().err


def test_allow_import_lets_resume_import_the_runs_module(run_naming, capsys, monkeypatch):
    out = run_naming("evilmod:CartPole-v1")
    (out / "evilmod.py").write_text(EVIL_MODULE)
    monkeypatch.syspath_prepend(str(out))
    monkeypatch.delitem(sys.modules, "evilmod", raising=False)
    try:
        args = ["train", "--resume", str(out), "--steps", "1024", "--no-progress"]
        assert main([*args, "--allow-import"]) == 0
    finally:
        sys.modules.pop("evilmod", None)
    assert (out / "PWNED").exists()
    assert "trained ppo on CartPole-v1: 512 steps (512 to 1024, resumed)" in capsys.readouterr().out


def test_train_reinforce_on_a_nan_reward_exits_non_zero_without_a_model(tmp_path, capsys):
    # Before: 20,002 steps, a model.pt with non-finite values in 10 tensors, exit code 0.
    import palaestra as gym
    from tests.train.envs import NaNRewardEnv

    gym.register("NaNRewardCli-v0", entry_point=NaNRewardEnv)
    try:
        args = ["train", "NaNRewardCli-v0", "--algo", "reinforce", "--out", str(tmp_path)]
        assert main([*args, "--no-video", *TINY]) == 2
    finally:
        gym.registry.pop("NaNRewardCli-v0")
    err = capsys.readouterr().err
    assert err.startswith("palaestra train: error: non-finite reward at env step 12: nan;")
    assert not (tmp_path / "model.pt").exists()


@pytest.mark.parametrize(
    "phase", ["palaestra.train.ppo.resolve_device", "palaestra.train.runner.build_agent"]
)
def test_ctrl_c_during_start_up_prints_one_line(tmp_path, capsys, monkeypatch, phase):
    # Before: a KeyboardInterrupt traceback when Ctrl-C came before training began.
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(phase, interrupt)
    assert main(["train", "CartPole-v1", "--out", str(tmp_path / "run"), *TINY]) == 130
    captured = capsys.readouterr()
    assert captured.out == (
        "palaestra train: interrupted during start-up, before training began; no checkpoint "
        "was written.\n"
    )
    assert captured.err == "" and not (tmp_path / "run" / ".lock").exists()


def test_a_killed_saves_temporary_file_is_removed_on_the_next_start(tmp_path, capsys):
    # Before: checkpoints/.step_N.pt.*.tmp of a killed save stayed for ever.
    out = tmp_path / "run"
    assert main(["train", "CartPole-v1", "--out", str(out), "--no-video", *TINY]) == 0
    checkpoints = out / "checkpoints"
    previous = (checkpoints / "step_512.pt").read_bytes()
    stale = [checkpoints / ".step_768.pt.k1ll3d.tmp", out / ".model.pt.k1ll3d.tmp"]
    for path in stale:
        path.write_bytes(previous[:100])
    assert main(["train", "--resume", str(out), "--steps", "640", "--no-progress"]) == 0
    assert not any(path.exists() for path in stale)
    assert (checkpoints / "step_512.pt").read_bytes() == previous


def test_checkpoint_flags_are_saved_with_the_run(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", "CartPole-v1", "--out", str(out), "--no-video", "--num-envs", "4", *TINY]
    assert main([*args, "--checkpoint-every", "256", "--checkpoint-minutes", "2.5"]) == 0
    saved = json.loads((out / "settings.json").read_text())
    assert (saved["checkpoint_every"], saved["checkpoint_minutes"]) == (256, 2.5)
    names = sorted(p.name for p in (out / "checkpoints").iterdir())
    assert names == ["step_256.pt", "step_512.pt"]


def test_eval_prefers_a_checkpoint_newer_than_model_pt(tmp_path, capsys):
    # Before: after a kill during the final model.pt save, eval silently used the older one.
    out = tmp_path / "run"
    args = ["train", "CartPole-v1", "--out", str(out), "--no-video", "--num-envs", "4", *TINY]
    assert main(args) == 0
    checkpoints = out / "checkpoints"
    (out / "model.pt").write_bytes((checkpoints / "step_384.pt").read_bytes())
    capsys.readouterr()
    assert main(["eval", str(checkpoints / "step_512.pt"), "--episodes", "2"]) == 0
    newest = capsys.readouterr().out
    assert main(["eval", str(out), "--episodes", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.err == (
        f"{out / 'model.pt'} holds step 384, older than the newest checkpoint "
        f"{checkpoints / 'step_512.pt'} (a final save was interrupted); using the newest "
        "checkpoint\n"
    )
    assert captured.out == newest


def test_ctrl_c_in_the_final_evaluation_says_training_finished(tmp_path, capsys, monkeypatch):
    # A Ctrl-C after training must not be reported as one during start-up.
    from palaestra.train import runner

    periodic = runner._EvaluationEnvs.evaluate

    def evaluate(self, episodes, seed, deterministic=True):
        if seed == runner.FINAL_EVAL_SEED:  # the final evaluation of a seed-0 run
            raise KeyboardInterrupt
        return periodic(self, episodes, seed, deterministic)

    monkeypatch.setattr(runner._EvaluationEnvs, "evaluate", evaluate)
    out = tmp_path / "run"
    assert main(["train", "CartPole-v1", "--out", str(out), "--no-video", *TINY]) == 130
    assert capsys.readouterr().out == (
        f"palaestra train: interrupted after training (512 steps): model.pt and the final "
        f"checkpoint are in {out}; the final evaluation was skipped (evaluate with "
        f"`palaestra eval {out}`).\n"
    )
    assert (out / "model.pt").is_file()


def test_resume_of_an_edited_settings_file_is_refused_before_building(
    tmp_path, capsys, monkeypatch
):
    # Before: the agent was built with the edited sizes (allocating them), then a torch
    # "Error(s) in loading state_dict" traceback.
    out = tmp_path / "run"
    assert main(["train", "CartPole-v1", "--out", str(out), "--no-video", *TINY]) == 0
    settings = json.loads((out / "settings.json").read_text())
    settings["overrides"]["hidden_sizes"] = [16384, 16384]
    (out / "settings.json").write_text(json.dumps(settings))
    capsys.readouterr()

    def must_not_build(*args, **kwargs):
        raise AssertionError("the agent was built before the sizes were checked")

    monkeypatch.setattr("palaestra.train.runner.build_agent", must_not_build)
    assert main(["train", "--resume", str(out), "--steps", "1024", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err == (
        f"palaestra train: error: cannot resume from {out / 'checkpoints' / 'step_512.pt'}: it "
        f"does not fit the agent {out / 'settings.json'} describes (was it edited?): size "
        "mismatch for actor.0.weight: copying a param with shape (64, 4) from checkpoint, the "
        "shape in current model is (16384, 4); nothing was built.\n"
    )


def test_an_out_that_cannot_be_created_is_one_clear_line(tmp_path, capsys):
    # Before: an OSError traceback (here: a folder name longer than the filesystem allows).
    out = tmp_path / ("a" * 300)
    assert main(["train", "CartPole-v1", "--out", str(out), *TINY]) == 2
    assert "cannot be created: File name too long; choose a folder" in one_error_line(capsys)


def test_an_empty_out_is_a_usage_error(tmp_path, capsys, monkeypatch):
    # Before: --out '' wrote the run's files into the current folder.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "CartPole-v1", "--out", "", *TINY])
    assert exit_info.value.code == 2
    assert "argument --out: expected a folder path, got ''" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_text_for_a_numeric_hyper_parameter_is_one_line(tmp_path, capsys):
    # Before: "'>' not supported between instances of 'str' and 'int'".
    args = ["train", "CartPole-v1", "--out", str(tmp_path), "--set", "learning_rate=abc", *TINY]
    assert main(args) == 2
    assert one_error_line(capsys) == (
        "palaestra train: error: learning_rate='abc' is not a number (e.g. learning_rate=0.0003).\n"
    )


def test_a_missing_env_dependency_names_the_extra_to_install(tmp_path):
    # Before: "import of mujoco halted ... (to import from this folder, add --import-path .)".
    script = (
        "import sys; sys.modules['mujoco'] = None\n"
        "from palaestra.cli import main\n"
        f"sys.exit(main(['train', 'HalfCheetah-v5', '--out', {str(tmp_path / 'run')!r}]))\n"
    )
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert finished.returncode == 2
    assert finished.stderr == (
        'palaestra train: error: MuJoCo is not installed, run `pip install "palaestra[mujoco]"`\n'
    )


def test_the_summary_line_splits_training_from_evaluation(tmp_path, capsys):
    assert main(["train", "CartPole-v1", "--out", str(tmp_path), "--no-video", *TINY]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    pattern = (
        r"trained ppo on CartPole-v1: 512 steps in \d+\.\d s \(\+ \d+\.\d s evaluating\); "
        r"final evaluation \(deterministic\) \d+\.\d\d ± \d+\.\d\d over 2 episodes"
    )
    assert re.fullmatch(pattern, line), line


def test_train_writes_the_best_model_beside_the_final_one(trained_run):
    from palaestra.train.checkpoint import load_state

    best = json.loads((trained_run / "summary.json").read_text())["best_model"]
    assert load_state(trained_run / "best_model.pt")["steps"] == best["steps"]
