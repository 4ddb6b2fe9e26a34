"""The physics of the classic-control environments, written once as pure functions.

Each module here holds one system: a frozen parameter dataclass with every constant, and
functions of ``(state, action, params)`` for the next state, termination, reward and the
initial-state draw. The single environments (``CartPoleEnv``...) are thin adapters around
them, and the natively batched environments call the very same functions.

Array conventions, shared by every module:

* A state is a 1-D array (one environment) or a 2-D array whose leading axis is the batch;
  the last axis holds the state components. Actions follow the batch shape: a scalar for
  one environment, a 1-D array for a batch (a 2-D array for continuous actions).
* The functions unpack the components with ``components(state)``: one float64 state gives
  Python floats (cheap, and rounded exactly as Gymnasium's numpy scalars), one state of
  another dtype gives numpy scalars of that dtype, and a batch gives its columns.
* ``x ** 2`` is written where Gymnasium squares a numpy scalar: on scalars numpy calls the C
  library's ``pow``, which in about 0.1% of cases differs by one ulp from ``x * x``; on arrays
  numpy multiplies. One environment therefore matches Gymnasium exactly, and a batch agrees
  with it to within that ulp in those few cases.
* Random draws take a :class:`numpy.random.Generator` and consume it in Gymnasium's order,
  so equal seeds give equal initial states.

Example:
    >>> import numpy as np
    >>> from palaestra.envs.classic_control.dynamics import cartpole
    >>> params = cartpole.CartPoleParams()
    >>> batch = np.zeros((3, 4))
    >>> cartpole.cartpole_step(batch, np.array([0, 1, 1]), params).shape
    (3, 4)
"""

from palaestra.envs.classic_control.dynamics._arrays import stack_components

__all__ = ["stack_components"]
