"""Training records: a CSV of metrics and a learning-curve plot."""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Any

METRIC_NAMES: dict[str, str] = {
    "steps": "global_step",
    "episodes": "charts/episodes",
    "mean_return": "charts/episodic_return",
    "mean_length": "charts/episodic_length",
    "return": "charts/episodic_return",
    "length": "charts/episodic_length",
    "steps_per_second": "charts/SPS",
    "learning_rate": "charts/learning_rate",
    "exploration_rate": "charts/epsilon",
    "eval_mean": "eval/mean_return",
    "eval_std": "eval/std_return",
    "eval_stochastic_mean": "eval/stochastic_mean_return",
    "loss": "losses/loss",
    "policy_loss": "losses/policy_loss",
    "value_loss": "losses/value_loss",
    "entropy": "losses/entropy",
    "approx_kl": "losses/approx_kl",
    "clip_fraction": "losses/clipfrac",
    "explained_variance": "losses/explained_variance",
    "grad_norm": "losses/grad_norm",
    "q_loss": "losses/qf_loss",
    "actor_loss": "losses/actor_loss",
    "ent_coef": "losses/alpha",
    "updates": "charts/updates",
    "time": "charts/time",
}
"""Training statistics (keys of the trainers' stats dicts) -> CleanRL-style metric names."""

METRIC_COLUMNS = tuple(dict.fromkeys(METRIC_NAMES.values()))
"""The columns of ``metrics.csv``, in order."""


class MetricsWriter:
    """Appends one row per call to ``metrics.csv`` and, when available, TensorBoard.

    Rows are trainer statistics (``steps``, ``mean_return``, ``value_loss``, ...); they are
    written under CleanRL-style names (:data:`METRIC_NAMES`: ``global_step``,
    ``charts/episodic_return``, ``losses/value_loss``, ...). Missing values are empty cells;
    unknown keys are ignored. With ``tensorboard_dir`` every value is also written as a
    TensorBoard scalar at ``global_step`` (skipped with a warning when TensorBoard is not
    installed).

    Args:
        path: the CSV file (created with a header row, or appended to with ``append``).
        tensorboard_dir: folder of the TensorBoard event files, or ``None``.
        append: continue an existing file (a resumed run) instead of starting a new one.
        after_step: with ``append``, first drop the rows past this env step (logged after
            the checkpoint a resumed run continues from, so they are not written twice);
            TensorBoard hides its events past it too (``purge_step``).

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "metrics.csv"
        >>> with MetricsWriter(path) as writer:
        ...     writer.write({"steps": 256, "mean_return": 21.5})
        >>> path.read_text().splitlines()[0].split(",")[:3]
        ['global_step', 'charts/episodes', 'charts/episodic_return']
        >>> path.read_text().splitlines()[1].split(",")[:3]
        ['256', '', '21.5']
    """

    def __init__(
        self,
        path: str | os.PathLike,
        tensorboard_dir: str | os.PathLike | None = None,
        append: bool = False,
        after_step: int | None = None,
    ):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        continuing = append and self.path.is_file() and self.path.stat().st_size > 0
        if continuing and after_step is not None:
            _drop_rows_after(self.path, after_step)
        self._file = open(self.path, "a" if continuing else "w", newline="")  # noqa: SIM115
        self._writer = csv.DictWriter(self._file, METRIC_COLUMNS, extrasaction="ignore")
        if not continuing:
            self._writer.writeheader()
        self.rows: list[dict[str, Any]] = []
        purge = after_step + 1 if append and after_step is not None else None
        self._tensorboard = _tensorboard_writer(tensorboard_dir, purge) if tensorboard_dir else None

    def write(self, row: dict[str, Any]) -> None:
        """Append ``row`` and flush, so the file is readable while training runs."""
        kept = {key: row[key] for key in METRIC_NAMES if key in row}
        self.rows.append(kept)
        named = {METRIC_NAMES[key]: _cell(value) for key, value in kept.items()}
        self._writer.writerow(named)
        self._file.flush()
        if self._tensorboard is not None:
            step = int(kept.get("steps", 0))
            for key, value in kept.items():
                if key != "steps" and _finite(value):
                    self._tensorboard.add_scalar(METRIC_NAMES[key], float(value), step)

    def close(self) -> None:
        """Close the file (and flush TensorBoard)."""
        self._file.close()
        if self._tensorboard is not None:
            self._tensorboard.close()

    def __enter__(self) -> MetricsWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _cell(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return ""
    return value


def _drop_rows_after(path: Path, step: int) -> None:
    """Rewrite ``path`` (atomically) without the rows whose ``global_step`` exceeds ``step``."""
    with open(path, newline="") as file:
        rows = list(csv.reader(file))
    column = rows[0].index("global_step") if rows and "global_step" in rows[0] else None
    if column is None:
        return
    kept = [rows[0]] + [row for row in rows[1:] if _step_of(row, column) <= step]
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "w", newline="") as file:
        csv.writer(file).writerows(kept)
    os.replace(temporary, path)


def _step_of(row: list[str], column: int) -> float:
    try:
        return float(row[column])
    except (IndexError, ValueError):
        return math.inf  # a torn last line of a killed run goes too


def _tensorboard_writer(folder: str | os.PathLike, purge_step: int | None = None) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError as exc:
        import warnings

        warnings.warn(
            f"Skipping TensorBoard logs ({exc}); install it with `pip install tensorboard`.",
            stacklevel=3,
        )
        return None
    return SummaryWriter(log_dir=str(folder), purge_step=purge_step)


def read_metrics(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Read ``metrics.csv`` back as rows keyed like the trainers' statistics.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "metrics.csv"
        >>> with MetricsWriter(path) as writer:
        ...     writer.write({"steps": 8, "eval_mean": 9.5})
        >>> read_metrics(path)
        [{'steps': 8.0, 'eval_mean': 9.5}]
    """
    by_name: dict[str, str] = {}
    for key, name in METRIC_NAMES.items():
        by_name.setdefault(name, key)
    rows = []
    with open(path, newline="") as file:
        for record in csv.DictReader(file):
            row = {}
            for name, text in record.items():
                if text not in ("", None) and name in by_name:
                    try:
                        row[by_name[name]] = float(text)
                    except ValueError:
                        continue
            rows.append(row)
    return rows


def plot_learning_curve(
    rows: list[dict[str, Any]], path: str | os.PathLike, title: str = ""
) -> Path:
    """Plot mean training return (and evaluation returns, when present) against env steps.

    Args:
        rows: metric rows as written by :class:`MetricsWriter`.
        path: the PNG file to write.
        title: the plot's title.

    Returns:
        The written path.

    Raises:
        palaestra.error.DependencyNotInstalled: if matplotlib is not installed.

    Example:
        >>> import tempfile
        >>> rows = [{"steps": 256, "mean_return": 20.0}, {"steps": 512, "eval_mean": 40.0}]
        >>> plot_learning_curve(rows, Path(tempfile.mkdtemp()) / "curve.png").suffix
        '.png'
    """
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 4))
    train = [(r["steps"], r["mean_return"]) for r in rows if _finite(r.get("mean_return"))]
    evals = [(r["steps"], r["eval_mean"]) for r in rows if _finite(r.get("eval_mean"))]
    if train:
        axes.plot(*zip(*train), label="training episodes (rolling mean)")
    if evals:
        axes.plot(*zip(*evals), "o-", label="evaluation (mean)")
    axes.set_xlabel("env steps")
    axes.set_ylabel("episode return")
    axes.set_title(title)
    axes.grid(alpha=0.3)
    if train or evals:
        axes.legend(loc="best")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return Path(path)


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        from palaestra import error

        raise error.DependencyNotInstalled(
            'matplotlib is needed for learning curves: run `pip install "palaestra[train]"`.'
        ) from exc
    return plt
