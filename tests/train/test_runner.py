"""Runs that survive: checkpoints, curves, locks, overwrites, Ctrl-C, NaNs, hung evaluations."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import palaestra as gym  # noqa: E402
from palaestra import error  # noqa: E402
from palaestra.train.checkpoint import load_state  # noqa: E402
from palaestra.train.diagnostics import NonFiniteError, StepTimeoutError  # noqa: E402
from palaestra.train.metrics import read_metrics  # noqa: E402
from palaestra.train.runner import (  # noqa: E402
    PHASES,
    STOP_RULE,
    RunInterrupted,
    RunLock,
    RunSettings,
    _EvaluationEnvs,
    _TrainingLoop,
    run_training,
)
from tests.train.envs import (  # noqa: E402
    HangsAfterEnv,
    NaNObservationEnv,
    NaNRewardEnv,
    NeverEndingEnv,
)

QUIET = {"video": False, "progress": False, "tensorboard": False, "eval_episodes": 4}


def settings(tmp_path, **changes):
    values = dict(QUIET, env_id="CartPole-v1", steps=512, out=str(tmp_path / "run"))
    values.update(changes)
    return RunSettings(**values)


@pytest.fixture
def registered():
    """Register test envs for one test."""
    ids = []

    def register(env_id, entry_point, **kwargs):
        gym.register(env_id, entry_point=entry_point, **kwargs)
        ids.append(env_id)
        return env_id

    yield register
    for env_id in ids:
        gym.registry.pop(env_id, None)


def test_a_run_that_stops_early_still_writes_a_checkpoint(tmp_path):
    # Before: checkpoints every 20% of the budget, and the run stopped before the first.
    summary = run_training(settings(tmp_path, steps=100_000, target=0.0))
    assert summary["reached_target"] and summary["steps"] < 20_000
    checkpoints = sorted(p.name for p in (tmp_path / "run" / "checkpoints").iterdir())
    assert checkpoints == [f"step_{summary['steps']}.pt"]


def test_the_learning_curve_has_several_evaluation_points(tmp_path):
    # Before: the headline run's curve was one evaluation dot.
    summary = run_training(settings(tmp_path, steps=1024))
    rows = read_metrics(tmp_path / "run" / "metrics.csv")
    evaluations = [row["steps"] for row in rows if "eval_mean" in row]
    # Every 256 steps while the evaluations have played fewer batched steps than training
    # (at 1024 they had not), then the final one.
    assert evaluations == [256, 512, 768, 1024]
    assert (summary["evaluations"], summary["evaluations_skipped"]) == (3, 1)
    assert (tmp_path / "run" / "learning_curve.png").stat().st_size > 0


def test_an_explicit_eval_every_is_kept_whatever_the_evaluations_cost(tmp_path):
    run_training(settings(tmp_path, steps=1024, eval_every=256))
    rows = read_metrics(tmp_path / "run" / "metrics.csv")
    evaluations = [row["steps"] for row in rows if "eval_mean" in row]
    assert evaluations == [256, 512, 768, 1024, 1024]  # every 256 steps, then the final one


def test_tensorboard_event_files_are_written(tmp_path):
    pytest.importorskip("tensorboard")
    run_training(settings(tmp_path, tensorboard=True, steps=256))
    events = list((tmp_path / "run" / "tensorboard").glob("events.out.tfevents.*"))
    assert len(events) == 1 and events[0].stat().st_size > 0


def test_the_summary_says_the_evaluation_is_deterministic(tmp_path):
    summary = run_training(settings(tmp_path, steps=256))
    saved = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["eval_mode"] == saved["eval_mode"] == "deterministic"


def test_a_folder_in_use_by_another_process_is_refused(tmp_path):
    # Before: two runs with the same --out both exited 0 with a torn metrics.csv.
    folder = tmp_path / "run"
    folder.mkdir()
    with RunLock(folder):  # held through another open file, as another process would
        (folder / ".lock").write_text("otherhost 4242\n")
        with pytest.raises(error.Error, match=r"in use by process 4242 on host otherhost"):
            run_training(settings(tmp_path))
    assert not (folder / "metrics.csv").exists()


def test_a_lock_left_by_a_dead_process_is_taken_over(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / ".lock").write_text("999999999")
    run_training(settings(tmp_path, steps=256))
    assert not (folder / ".lock").exists()


HOLD_LOCK = """
import sys, time
from palaestra.train.runner import RunLock
RunLock(sys.argv[1]).acquire()
print("locked", flush=True)
time.sleep(60)
"""


def test_the_lock_names_host_and_pid_and_dies_with_its_process(tmp_path):
    # Before: the lock held only a pid (no host), and a live pid was trusted as the owner.
    import signal
    import socket
    import subprocess
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline() == "locked\n"
        expected = f"in use by process {holder.pid} on host {socket.gethostname()}"
        with pytest.raises(error.Error, match=expected):
            RunLock(tmp_path).acquire()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        holder.stdout.close()
    with RunLock(tmp_path) as lock:  # the lock went with its process, though .lock stayed
        assert lock.path.read_text() == f"{socket.gethostname()} {os.getpid()}\n"
    assert not lock.path.exists()


def test_an_existing_run_is_not_overwritten_without_overwrite(tmp_path):
    # Before: re-training into a folder silently kept the old files.
    run_training(settings(tmp_path, steps=256))
    with pytest.raises(error.Error, match=r"already holds a run .*pass --overwrite"):
        run_training(settings(tmp_path, steps=256))


def test_overwrite_replaces_the_old_runs_files(tmp_path):
    run_training(settings(tmp_path, steps=512, checkpoints=2))
    run_training(settings(tmp_path, steps=256, checkpoints=1, overwrite=True))
    names = sorted(p.name for p in (tmp_path / "run" / "checkpoints").iterdir())
    assert names == ["step_256.pt"]


def test_an_out_path_that_is_a_file_is_a_clear_error(tmp_path):
    (tmp_path / "run").write_text("not a folder")
    with pytest.raises(error.Error, match=r"is a file, not a folder"):
        run_training(settings(tmp_path))


@pytest.fixture
def interrupt_after_updates(monkeypatch):
    """Make Ctrl-C arrive during the given update."""

    def arm(count):
        calls = []
        original = _TrainingLoop.on_update

        def on_update(self, stats):
            calls.append(stats["steps"])
            if len(calls) == count:
                raise KeyboardInterrupt
            return original(self, stats)

        monkeypatch.setattr(_TrainingLoop, "on_update", on_update)

    return arm


def test_ctrl_c_writes_a_final_checkpoint_model_and_summary(tmp_path, interrupt_after_updates):
    # Before: after Ctrl-C there was no model.pt or summary.json.
    interrupt_after_updates(3)
    with pytest.raises(RunInterrupted, match=r"interrupted at step 768.*--resume"):
        run_training(settings(tmp_path, steps=2048))
    folder = tmp_path / "run"
    summary = json.loads((folder / "summary.json").read_text())
    assert (summary["interrupted"], summary["steps"]) == (True, 768)
    assert (folder / "model.pt").is_file() and (folder / "checkpoints" / "step_768.pt").is_file()
    assert not (folder / ".lock").exists()


def test_resume_continues_an_interrupted_run_to_its_budget(tmp_path, interrupt_after_updates):
    interrupt_after_updates(2)
    with pytest.raises(RunInterrupted):
        run_training(settings(tmp_path, steps=1024))
    from palaestra.train.runner import resume_settings

    interrupt_after_updates(10**9)
    summary = run_training(resume_settings(tmp_path / "run"), resume=True)
    assert summary["steps"] == 1024
    steps = [row["steps"] for row in read_metrics(tmp_path / "run" / "metrics.csv")]
    assert steps[0] == 256 and steps[-1] == 1024


def test_a_nan_reward_stops_training_by_default_naming_the_step(tmp_path, registered):
    # Before: without --diagnostics, training ran to rc 0 with every weight NaN.
    env_id = registered("NaNReward-v0", NaNRewardEnv)
    with pytest.raises(NonFiniteError) as caught:
        run_training(settings(tmp_path, env_id=env_id, num_envs=1, steps=256))
    message = str(caught.value)
    assert message.startswith("non-finite reward at env step 12 in sub-env 0: nan")
    assert "check_finite=False" in message and "--no-check-finite" in message


def test_reinforce_stops_at_a_nan_reward_and_writes_no_model(tmp_path, registered):
    # Before: REINFORCE trained on, wrote a model.pt of NaN weights and exited 0.
    env_id = registered("NaNReward-v0", NaNRewardEnv)
    with pytest.raises(NonFiniteError, match=r"^non-finite reward at env step 12: nan;"):
        run_training(settings(tmp_path, env_id=env_id, algo="reinforce", steps=256))
    assert not (tmp_path / "run" / "model.pt").exists()


@pytest.mark.parametrize(
    "algo, where",
    [("ppo", " in sub-env 0"), ("dqn", " in sub-env 0"), ("reinforce", "")],
)
def test_a_nan_observation_is_named_with_its_step_and_sub_env(tmp_path, registered, algo, where):
    # Before: "non-finite loss or gradient" (PPO, DQN); REINFORCE trained on.
    env_id = registered("NaNObservation-v0", NaNObservationEnv)
    run = settings(tmp_path, env_id=env_id, algo=algo, num_envs=1, steps=256)
    with pytest.raises(NonFiniteError) as caught:
        run_training(run)
    headline = str(caught.value).splitlines()[0]
    assert headline == (
        f"non-finite observation at env step 12{where}: "
        "array([ 0.,  0., nan,  0.], dtype=float32); training stopped."
    )
    assert not (tmp_path / "run" / "model.pt").exists()


def test_check_finite_false_opts_out_explicitly(tmp_path, registered):
    env_id = registered("NaNReward-v0", NaNRewardEnv)
    overrides = {"check_finite": False, "n_steps": 64}
    run = settings(tmp_path, env_id=env_id, num_envs=1, steps=64, overrides=overrides)
    assert run_training(run)["steps"] == 64


def test_the_step_timeout_covers_the_evaluation_envs(tmp_path, registered):
    # Before: with --diagnostics --step-timeout 2 a hanging env hung in the periodic evaluation.
    HangsAfterEnv.stepped = False
    env_id = registered("HangsInEval-v0", HangsAfterEnv, max_episode_steps=50)
    overrides = {"step_timeout": 0.5, "n_steps": 32}
    run = settings(tmp_path, env_id=env_id, num_envs=2, steps=256, eval_every=64)
    run.overrides = overrides
    with pytest.raises(StepTimeoutError, match=r"did not return within step_timeout=0.5 s"):
        run_training(run)


@pytest.mark.parametrize(
    "algo, purposes", [("ppo", ["evaluation"]), ("reinforce", ["training", "evaluation"])]
)
def test_episodes_that_never_end_are_cut_with_a_warning(
    tmp_path, registered, monkeypatch, algo, purposes
):
    # Before: an env without a time limit whose episodes never end hung the run.
    from palaestra.train import evaluation

    monkeypatch.setattr(evaluation, "EPISODE_STEP_CAP", 200)
    env_id = registered("NeverEnding-v0", NeverEndingEnv)
    with pytest.warns(UserWarning) as caught:
        summary = run_training(settings(tmp_path, env_id=env_id, algo=algo, num_envs=1, steps=512))
    for purpose in purposes:
        expected = f"NeverEnding-v0 has no time limit: its {purpose} episodes are cut at 200 steps"
        assert any(str(w.message).startswith(expected) for w in caught), purpose
    assert summary["eval_mean"] == 200.0  # each evaluation episode: 200 steps of reward 1


def test_evaluate_cuts_episodes_at_max_episode_steps(registered):
    from palaestra.train.evaluation import evaluate

    class Left:
        def predict(self, observations, deterministic=True):
            return np.zeros(len(observations), dtype=np.int64)

    envs = gym.make_vec(registered("NeverEnding-v0", NeverEndingEnv), num_envs=2)
    returns = evaluate(Left(), envs, episodes=3, max_episode_steps=7)
    assert returns.tolist() == [7.0, 7.0, 7.0]


def test_resume_after_a_crash_does_not_repeat_metric_rows(tmp_path):
    # Before: the rows logged since the last checkpoint came twice (one step going backwards).
    run_training(settings(tmp_path, steps=1024, checkpoints=2))
    folder = tmp_path / "run"
    uninterrupted = [row["steps"] for row in read_metrics(folder / "metrics.csv")]
    # A crash after step 1024's rows were logged but before its checkpoint and model.pt:
    (folder / "checkpoints" / "step_1024.pt").unlink()
    (folder / "model.pt").unlink()
    from palaestra.train.runner import resume_settings

    run_training(resume_settings(folder), resume=True)
    assert [row["steps"] for row in read_metrics(folder / "metrics.csv")] == uninterrupted


def checkpoint_names(tmp_path):
    return sorted(
        (p.name for p in (tmp_path / "run" / "checkpoints").iterdir()),
        key=lambda name: int(name[5:-3]),
    )


def test_checkpoint_every_sets_the_steps_between_checkpoints(tmp_path):
    # Before: checkpoints came every fifth of the budget, with no way to choose.
    run_training(settings(tmp_path, steps=2048, checkpoint_every=1024))
    assert checkpoint_names(tmp_path) == ["step_1024.pt", "step_2048.pt"]


def test_checkpoint_minutes_checkpoints_by_wall_time(tmp_path):
    # One checkpoint by steps (at the end); a tiny period in minutes adds one per update.
    run_training(settings(tmp_path, steps=1024, checkpoints=1, checkpoint_minutes=1e-9))
    assert checkpoint_names(tmp_path) == [f"step_{n}.pt" for n in (256, 512, 768, 1024)]


def test_a_run_killed_before_its_first_checkpoint_resumes_from_step_0(tmp_path):
    # Before: "nothing to resume" for a run with settings.json and metrics but no checkpoint.
    run_training(settings(tmp_path, steps=512))
    folder = tmp_path / "run"
    uninterrupted = [row["steps"] for row in read_metrics(folder / "metrics.csv")]
    import shutil

    shutil.rmtree(folder / "checkpoints")
    (folder / "model.pt").unlink()
    from palaestra.train.runner import resume_settings

    with pytest.warns(UserWarning, match=r"no checkpoint yet .*starts again from step 0"):
        summary = run_training(resume_settings(folder), resume=True)
    assert summary["steps"] == 512
    assert [row["steps"] for row in read_metrics(folder / "metrics.csv")] == uninterrupted


def test_a_lucky_argmax_does_not_stop_the_run(tmp_path):
    # Before: seed 0 stopped at 1536 steps on one deterministic evaluation of 500 while its
    # sampled actions scored ~33: a nearly uniform policy.
    # Here seed 0 scores 500 at 2304-2816 steps deterministically, 107-146 sampling.
    run = settings(tmp_path, steps=4096, target=475.0, seed=0, eval_every=256)
    summary = run_training(run)
    rows = read_metrics(tmp_path / "run" / "metrics.csv")
    # Sampled actions are evaluated only when the deterministic evaluation reached 475.
    lucky = [row for row in rows if "eval_stochastic_mean" in row]
    assert lucky and all(row["eval_mean"] >= 475 > row["eval_stochastic_mean"] for row in lucky)
    assert (summary["reached_target"], summary["steps"]) == (False, 4096)


def test_a_run_stops_once_both_evaluations_reach_the_target_and_reuses_the_confirmation(
    tmp_path,
):
    summary = run_training(settings(tmp_path, steps=2048, target=0.0))
    rows = read_metrics(tmp_path / "run" / "metrics.csv")
    evaluations = [(r["steps"], "eval_stochastic_mean" in r) for r in rows if "eval_mean" in r]
    # One periodic evaluation (with its sampled-action one), then the confirmation as final.
    assert evaluations == [(256, True), (256, False)]
    assert (summary["reached_target"], summary["evaluations"], summary["steps"]) == (True, 1, 256)
    assert summary["stop_rule"] == STOP_RULE


def test_periodic_evaluations_play_few_episodes_and_the_final_one_all(tmp_path, monkeypatch):
    played = []
    original = _EvaluationEnvs.evaluate

    def evaluate(self, episodes, seed, deterministic=True):
        played.append(episodes)
        return original(self, episodes, seed, deterministic)

    monkeypatch.setattr(_EvaluationEnvs, "evaluate", evaluate)
    run_training(settings(tmp_path, steps=768, periodic_eval_episodes=3, eval_episodes=5))
    assert played == [3, 3, 3, 5]


def test_the_summary_splits_the_wall_time_into_phases(tmp_path):
    summary = run_training(settings(tmp_path, steps=512))
    assert list(summary["seconds"]) == list(PHASES)
    assert all(seconds >= 0 for seconds in summary["seconds"].values())
    assert summary["train_seconds"] == summary["seconds"]["training"]
    assert summary["start_step"] == 0


def test_the_best_model_is_the_best_periodic_evaluation_or_the_final_agent(tmp_path):
    summary = run_training(settings(tmp_path, steps=1024))
    rows = read_metrics(tmp_path / "run" / "metrics.csv")
    periodic = [row["eval_mean"] for row in rows if "eval_mean" in row][:-1]
    best = summary["best_model"]
    if best["eval_episodes"] == 4:  # the final evaluation won
        assert best["eval_mean"] == summary["eval_mean"] >= max(periodic)
    else:
        assert best["eval_mean"] == max(periodic)
    assert load_state(tmp_path / "run" / "best_model.pt")["steps"] == best["steps"]


def test_a_run_stopped_at_its_target_keeps_its_final_agent_as_the_best(tmp_path):
    summary = run_training(settings(tmp_path, steps=2048, target=0.0))
    assert summary["best_model"]["steps"] == summary["steps"]
    folder = tmp_path / "run"
    assert (folder / "best_model.pt").read_bytes() == (folder / "model.pt").read_bytes()


def test_ppo_never_cuts_its_last_rollout_to_fit_the_budget(tmp_path):
    # Before: --steps 300 ran a last update on a 44-step rollout (5.5 steps per env).
    summary = run_training(settings(tmp_path, steps=300))
    steps = [row["steps"] for row in read_metrics(tmp_path / "run" / "metrics.csv")]
    assert summary["steps"] == 512 and steps[:2] == [256, 512]


def test_the_progress_bar_ends_full_when_the_run_stops_at_its_target(tmp_path, capsys):
    # Before: the bar was left at 2% ("1536/100000") when the run stopped at the threshold.
    pytest.importorskip("tqdm")
    run_training(settings(tmp_path, steps=100_000, target=0.0, progress=True))
    last = capsys.readouterr().err.split("\r")[-1]
    assert "100%" in last and "256/256" in last and "target reached" in last


def test_a_resumed_run_records_the_step_it_resumed_from(tmp_path, interrupt_after_updates):
    interrupt_after_updates(2)
    with pytest.raises(RunInterrupted):
        run_training(settings(tmp_path, steps=1024))
    from palaestra.train.runner import resume_settings

    interrupt_after_updates(10**9)
    summary = run_training(resume_settings(tmp_path / "run"), resume=True)
    assert (summary["start_step"], summary["steps"]) == (512, 1024)


def test_text_for_a_numeric_hyper_parameter_is_refused_naming_it(tmp_path):
    with pytest.raises(ValueError, match=r"^learning_rate='abc' is not a number"):
        run_training(settings(tmp_path, overrides={"learning_rate": "abc"}))


def test_an_empty_out_is_refused():
    with pytest.raises(ValueError, match=r"out is an empty path"):
        RunSettings("CartPole-v1", out="")


def test_training_builds_and_saves_adam_without_importing_torch_dynamo(tmp_path):
    # Before: the first Adam (or its first step) imported torch._dynamo: 2 s, 8 s under load.
    script = (
        "import sys\n"
        "from palaestra.train.runner import RunSettings, build_agent\n"
        "from palaestra.train.checkpoint import save_agent\n"
        "agent, _, _ = build_agent(RunSettings('CartPole-v1'))\n"
        "agent.learn(512, progress_bar=False)\n"
        f"save_agent(agent, {str(tmp_path / 'model.pt')!r})\n"
        "print('torch._dynamo' in sys.modules)\n"
    )
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert finished.stdout == "False\n", finished.stderr
