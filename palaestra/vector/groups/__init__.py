"""One group layer under the pool and Ray vector envs: groups of sub-envs, one worker each.

* :class:`GroupedVectorEnv` -- the per-group state machine (reset-mask splitting,
  ``send``/``recv`` bookkeeping, draining, restarts per autoreset mode, info placement);
  :class:`~palaestra.vector.PoolVectorEnv` (shared memory and pipes) and
  :class:`~palaestra.vector.ray.RayVectorEnv` (Ray calls and direct channels) are its two
  transports;
* what a group's worker runs: :func:`sync_group`, :func:`native_group`, :func:`group_call`,
  and :func:`place_info` for its infos;
* the batches of groups: :func:`slice_batch`, :func:`join_batches`, :func:`take_rows` and the
  flat-array layout of fixed-shape spaces (:func:`fixed_leaves`, :func:`assemble`,
  :func:`write_batch`).

Example:
    >>> from palaestra.vector.groups import group_bounds
    >>> group_bounds(4, 2)
    [(0, 2), (2, 4)]
"""

from palaestra.vector.groups._batches import (
    assemble,
    copy_batch,
    fixed_leaves,
    join_batches,
    row_of,
    slice_batch,
    take_rows,
    write_batch,
)
from palaestra.vector.groups._builders import (
    ROW_INFOS,
    GroupSyncVectorEnv,
    group_call,
    native_group,
    place_info,
    sync_group,
)
from palaestra.vector.groups._machine import Failure, Group, GroupedVectorEnv, Round, group_bounds

__all__ = [
    "Failure",
    "Group",
    "GroupSyncVectorEnv",
    "GroupedVectorEnv",
    "ROW_INFOS",
    "Round",
    "assemble",
    "copy_batch",
    "fixed_leaves",
    "group_bounds",
    "group_call",
    "join_batches",
    "native_group",
    "place_info",
    "row_of",
    "slice_batch",
    "sync_group",
    "take_rows",
    "write_batch",
]
