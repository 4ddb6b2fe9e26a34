"""The process layer under every multi-process vector env: start, talk, watch, stop, restart.

:class:`~palaestra.vector.AsyncVectorEnv` (one worker per sub-env) and
:class:`~palaestra.vector.PoolVectorEnv` (one worker per group of sub-envs) both build on it:

* **spawning** -- :class:`Workers` starts worker processes, each with a pipe; before that,
  :func:`check_capacity` refuses a number of workers the machine cannot serve (file
  descriptors, memory) with a :class:`ResourceLimitError`, so nothing is half-started;
* **liveness** -- waiting watches each worker's pipe *and* its process sentinel, so a dead
  worker is seen at once; a worker calls :func:`parent_alive` and exits when orphaned;
  :func:`process_alive` tells whether any process id still runs;
* **timeouts** -- every wait takes a deadline; late replies of a timed-out call are counted
  and dropped, never taken as the answer to the next call;
* **shutdown** -- :meth:`Workers.shut_down` and :func:`stop_process`: ``close`` within a
  grace period, then ``terminate``, then ``kill``; works while another thread still waits;
* **error transport** -- :func:`failure_report` turns an exception in a worker into a
  picklable :class:`ErrorReport`; :func:`rebuild_exception` raises it in the parent as the
  *same* exception type, with the sub-env index and the worker's traceback. Argument errors
  (:func:`is_argument_error`: a bad action, seed or call name) never stop a worker;
* **restarts** -- :class:`RestartBudget` bounds and announces restarts of failed workers.

The worker side of the protocol does not depend on pipes: a worker receives
``(command, data)`` and replies with :func:`answer`'s ``(result, True)`` or
``(ErrorReport, False)``. Another transport (a Ray actor, say) can serve the same handlers
by calling :func:`answer` for each message and reuse the error transport and restart budget
unchanged.

Example:
    >>> from palaestra.vector.processes import failure_report, rebuild_exception
    >>> try:
    ...     raise KeyError("lost")
    ... except KeyError as error:
    ...     report = failure_report(3, error)
    >>> raised = rebuild_exception(report, "MyVectorEnv")
    >>> type(raised).__name__, raised.env_index
    ('KeyError', 3)
"""

from palaestra.vector.processes._capacity import ResourceLimitError, check_capacity
from palaestra.vector.processes._errors import (
    ErrorReport,
    failure_report,
    group_failure_error,
    is_argument_error,
    locate_sub_env,
    lost_workers_error,
    rebuild_exception,
)
from palaestra.vector.processes._liveness import parent_alive, process_alive
from palaestra.vector.processes._protocol import answer
from palaestra.vector.processes._restarts import RestartBudget
from palaestra.vector.processes._workers import (
    TERMINATE_GRACE_SECONDS,
    Replies,
    Workers,
    stop_process,
)

__all__ = [
    "ErrorReport",
    "Replies",
    "ResourceLimitError",
    "RestartBudget",
    "TERMINATE_GRACE_SECONDS",
    "Workers",
    "answer",
    "check_capacity",
    "failure_report",
    "group_failure_error",
    "is_argument_error",
    "locate_sub_env",
    "lost_workers_error",
    "parent_alive",
    "process_alive",
    "rebuild_exception",
    "stop_process",
]
