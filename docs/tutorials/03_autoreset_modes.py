"""Autoreset modes, step by step.

When a sub-env of a vector env ends its episode, what happens on the following `step` depends
on the vector env's `autoreset_mode` (`palaestra.vector.AutoresetMode`, also in
`envs.metadata["autoreset_mode"]`). This script runs the same three CartPole sub-envs with the
same seeds and actions in each mode and draws what every `step` returned for every sub-env.
Sub-env 0 always pushes right (the pole falls: *terminated*), sub-env 1 alternates (it
survives until the time limit of 15 steps: *truncated*), sub-env 2 acts at random.

**`NEXT_STEP`** (the default, as in Gymnasium): the step after an episode ended resets that
sub-env. It returns the new episode's first observation with reward 0 and both flags False,
and the action given for that sub-env is ignored. Count these steps out of your statistics
(`palaestra.vector.episodes.EpisodeMasks` tells which rows they are).

![NEXT_STEP timeline](../images/autoreset_next_step.png)

**`SAME_STEP`**: the step that ends an episode also resets. Its observation is already the
next episode's first one; the ending observation and info are in `info["final_obs"]` and
`info["final_info"]`, with the masks `info["_final_obs"]`/`info["_final_info"]`. No step is
spent on resetting (what Stable-Baselines3's `VecEnv` does).

![SAME_STEP timeline](../images/autoreset_same_step.png)

**`DISABLED`**: nothing resets by itself. Stepping an ended sub-env raises `RuntimeError`;
reset the ended ones with `envs.reset(options={"reset_mask": ended})`, which also returns their
first observations.

![DISABLED timeline](../images/autoreset_disabled.png)

Run `python docs/tutorials/03_autoreset_modes.py` to redraw the pictures into `docs/images/`
(or `--images DIR` for another folder).
"""

import argparse
from pathlib import Path

import numpy as np

import palaestra as gym
from palaestra.vector import AutoresetMode

NUM_ENVS, STEPS, TIME_LIMIT = 3, 34, 15
STEP, TERMINATED, TRUNCATED, RESET_STEP, MASK_RESET = range(5)
LABELS = {
    STEP: "transition",
    TERMINATED: "terminated",
    TRUNCATED: "truncated",
    RESET_STEP: "reset step (reward 0, action ignored)",
    MASK_RESET: "reset by reset_mask, then stepped",
}
COLORS = {
    STEP: "#c9d6ea",
    TERMINATED: "#d62728",
    TRUNCATED: "#ff9f1c",
    RESET_STEP: "#2ca02c",
    MASK_RESET: "#9467bd",
}


def actions_for(step, rng):
    """Sub-env 0 always right, sub-env 1 alternating, sub-env 2 at random."""
    return np.array([1, step % 2, rng.integers(0, 2)], dtype=np.int64)


def run(mode):
    """Step three CartPoles in ``mode``; return each step's category per sub-env."""
    envs = gym.make_vec(
        "CartPole-v1",
        num_envs=NUM_ENVS,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        max_episode_steps=TIME_LIMIT,
    )
    assert envs.metadata["autoreset_mode"] == mode
    rng = np.random.default_rng(0)
    envs.reset(seed=7)
    categories = np.zeros((NUM_ENVS, STEPS), dtype=np.int64)
    ended = np.zeros(NUM_ENVS, dtype=bool)
    final_obs_rows = []
    for step in range(STEPS):
        reset_now = np.zeros(NUM_ENVS, dtype=bool)
        if mode == AutoresetMode.DISABLED and ended.any():
            envs.reset(options={"reset_mask": ended})
            reset_now = ended.copy()
        _, rewards, terminations, truncations, infos = envs.step(actions_for(step, rng))
        for i in range(NUM_ENVS):
            if mode == AutoresetMode.NEXT_STEP and ended[i]:
                assert rewards[i] == 0 and not terminations[i] and not truncations[i]
                categories[i, step] = RESET_STEP
            elif terminations[i]:
                categories[i, step] = TERMINATED
            elif truncations[i]:
                categories[i, step] = TRUNCATED
            else:
                categories[i, step] = MASK_RESET if reset_now[i] else STEP
        if mode == AutoresetMode.SAME_STEP and "_final_obs" in infos:
            # the ending observations of exactly the sub-envs that ended
            assert np.array_equal(infos["_final_obs"], terminations | truncations)
            final_obs_rows += [(i, step) for i in np.flatnonzero(infos["_final_obs"])]
        ended = terminations | truncations
    envs.close()
    return categories, final_obs_rows


def draw(mode, categories, final_obs_rows, path):
    """Draw one mode's timeline: a row per sub-env, a cell per step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    fig, ax = plt.subplots(figsize=(10, 2.6), dpi=100)
    cmap = ListedColormap([COLORS[c] for c in sorted(COLORS)])
    ax.imshow(categories, cmap=cmap, vmin=0, vmax=len(COLORS) - 1, aspect="auto")
    for i, step in final_obs_rows:
        ax.text(step, i, "F", ha="center", va="center", fontsize=8, color="white", weight="bold")
    ax.set_xticks(range(0, STEPS, 2))
    ax.set_yticks(range(NUM_ENVS), [f"sub-env {i}" for i in range(NUM_ENVS)])
    ax.set_xticks(np.arange(-0.5, STEPS), minor=True)
    ax.set_yticks(np.arange(-0.5, NUM_ENVS), minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("step() call")
    ax.set_title(f"autoreset_mode={mode.name}", loc="left")
    shown = sorted(set(np.unique(categories)))
    handles = [Patch(color=COLORS[c], label=LABELS[c]) for c in shown]
    if final_obs_rows:
        handles.append(Patch(color="#444444", label='F: info["final_obs"] holds the ending obs'))
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.35),
        ncol=3,
        fontsize=8,
        frameon=False,
    )
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)


def main():
    """Run every mode, print what its steps were and draw its timeline."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--images", type=Path, default=Path(__file__).resolve().parent.parent / "images"
    )
    args = parser.parse_args()
    args.images.mkdir(parents=True, exist_ok=True)
    for mode in AutoresetMode:
        categories, final_obs_rows = run(mode)
        counts = {LABELS[c]: int((categories == c).sum()) for c in np.unique(categories)}
        print(f"{mode.name:>9}: {counts}")
        draw(mode, categories, final_obs_rows, args.images / f"autoreset_{mode.name.lower()}.png")
    print(f"timelines written to {args.images}")


if __name__ == "__main__":
    main()
