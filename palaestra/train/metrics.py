"""Training records: a CSV of metrics and a learning-curve plot."""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Any

METRIC_COLUMNS = (
    "steps",
    "episodes",
    "mean_return",
    "eval_mean",
    "eval_std",
    "loss",
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "clip_fraction",
    "grad_norm",
    "learning_rate",
    "time",
)


class MetricsWriter:
    """Appends one row of :data:`METRIC_COLUMNS` per call to a CSV file.

    Missing values are written as empty cells; extra keys are ignored.

    Args:
        path: the CSV file (created or overwritten, with a header row).

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "metrics.csv"
        >>> with MetricsWriter(path) as writer:
        ...     writer.write({"steps": 256, "mean_return": 21.5})
        >>> path.read_text().splitlines()[1].split(",")[:3]
        ['256', '', '21.5']
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "w", newline="")  # noqa: SIM115 - closed in close()
        self._writer = csv.DictWriter(self._file, METRIC_COLUMNS, extrasaction="ignore")
        self._writer.writeheader()
        self.rows: list[dict[str, Any]] = []

    def write(self, row: dict[str, Any]) -> None:
        """Append ``row`` and flush, so the file is readable while training runs."""
        kept = {key: row[key] for key in METRIC_COLUMNS if key in row}
        self.rows.append(kept)
        self._writer.writerow(kept)
        self._file.flush()

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __enter__(self) -> MetricsWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


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
