"""``palaestra train`` and ``palaestra eval``: smoke runs with tiny budgets."""

import json
import re
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
