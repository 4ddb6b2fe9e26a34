"""The optional numba accelerator's generic half: a scoped compiler, exact powers, compiled draws.

:func:`njit` compiles a function as :func:`numba.njit` does, through a pipeline of palaestra's
own (:class:`NativePipeline`) that rewrites, in that function only, what must compute as the
single environments compute it in Python:

- ``x ** n`` becomes :func:`exact_power`: for float64 ``x ** 2`` the product, recomputed with
  the C library's ``pow`` in the rare cases where the two may round apart (as Python floats and
  numpy scalars square); other float powers call ``pow``/``powf`` as Python and numpy do.
  numba's own lowering multiplies, which rounds differently in about 0.1% of squares.
- ``value.T`` becomes :func:`transpose` (a tuple's "transpose" is itself, so ``x, v = state.T``
  also unpacks a tuple state) and ``np.asanyarray`` becomes :func:`as_any_array`.

Nothing is registered for numba's own operators or numpy functions, so every other numba
function in the process compiles exactly as it would without palaestra. Helpers that compiled
code calls are registered with :func:`register_jitable`, which compiles them through the same
pipeline.

:func:`as_named_tuple` turns a frozen parameter dataclass into a named tuple numba reads, its
string fields :class:`Choice` values compared at compile time. :func:`compiled_draw_doubles`,
:func:`compiled_restart_uniform` and :func:`compiled_close_step` are the compiled twins of the
batched PCG64 draws, an autoreset on uniform initial states and the per-step bookkeeping.

Importing this module needs numba (the ``fast`` extra).

Example:
    >>> def square(x):
    ...     return x**2
    >>> njit(square)(0.1) == 0.1**2
    True
"""

from __future__ import annotations

import collections
import dataclasses
import operator
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir as llvm
from numba.core import cgutils, ir, types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.imputils import lower_constant
from numba.core.ir_utils import build_definitions
from numba.core.untyped_passes import IRProcessing
from numba.extending import (
    intrinsic,
    models,
    overload,
    register_model,
    typeof_impl,
)
from numba.extending import register_jitable as _numba_register_jitable

from palaestra.vector.native import exact_squares, pcg64

__all__ = [
    "NativePipeline",
    "Float32Pipeline",
    "njit",
    "register_jitable",
    "exact_power",
    "transpose",
    "as_any_array",
    "Choice",
    "as_named_tuple",
    "compiled_draw_doubles",
    "compiled_restart_uniform",
    "compiled_close_step",
]


# The stand-ins the pipeline substitutes. Called from Python they do what the original does.


def exact_power(base: Any, exponent: Any) -> Any:
    """Return ``base ** exponent``, computed in compiled code as Python computes it.

    Example:
        >>> exact_power(3.0, 2)
        9.0
    """
    return base**exponent


def transpose(value: Any) -> Any:
    """Return ``value.T``; in compiled code a tuple is its own transpose.

    Example:
        >>> transpose(np.zeros((2, 3))).shape
        (3, 2)
    """
    return value.T


def as_any_array(value: Any, dtype: Any = None) -> Any:
    """Return :func:`numpy.asanyarray` of ``value``; compiled, an array passes through.

    Example:
        >>> as_any_array([1, 2], np.float64)
        array([1., 2.])
    """
    return np.asanyarray(value, dtype=dtype)


# 2**-53: |p| times this is at most half the spacing of floats at p, so comparing against it
# flags every square that the exact test of ``exact_squares`` flags (and a few more).
_SQUARE_ERROR_BOUND = exact_squares._MIDPOINT_MARGIN * 1.1102230246251565e-16


def _c_pow(builder: Any, name: str, base: Any, exponent: Any) -> Any:
    """Call the C library's ``name`` (``pow``, ``powf``) as itself.

    ``nobuiltin`` keeps LLVM from rewriting a call with exponent 2 into a product.
    """
    function_type = llvm.FunctionType(base.type, [base.type, base.type])
    function = cgutils.get_or_insert_function(builder.module, function_type, name)
    function.attributes.add("nobuiltin")
    return builder.call(function, [base, exponent])


@intrinsic
def _float64_power(typing_context: Any, base: Any, exponent: Any) -> Any:
    def build(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
        base, exponent = arguments
        double = base.type
        result = cgutils.alloca_once(builder, double)
        is_square = builder.icmp_signed("==", exponent, llvm.Constant(exponent.type, 2))
        with builder.if_else(is_square, likely=True) as (square, other):
            with square:
                # The product is pow's result unless its rounding error puts the exact
                # square near a midpoint between two floats.
                product = builder.fmul(base, base)
                builder.store(product, result)
                fma = builder.module.declare_intrinsic(
                    "llvm.fma", [double], llvm.FunctionType(double, [double] * 3)
                )
                fabs = builder.module.declare_intrinsic(
                    "llvm.fabs", [double], llvm.FunctionType(double, [double])
                )
                error = builder.call(fma, [base, base, builder.fneg(product)])
                bound = builder.fmul(
                    builder.call(fabs, [product]), llvm.Constant(double, _SQUARE_ERROR_BOUND)
                )
                near = builder.fcmp_unordered(">", builder.call(fabs, [error]), bound)
                with builder.if_then(near, likely=False):
                    square_by_pow = _c_pow(builder, "pow", base, llvm.Constant(double, 2.0))
                    builder.store(square_by_pow, result)
            with other:
                power = _c_pow(builder, "pow", base, builder.sitofp(exponent, double))
                builder.store(power, result)
        return builder.load(result)

    return types.float64(types.float64, types.int64), build


@intrinsic
def _float32_power(typing_context: Any, base: Any, exponent: Any) -> Any:
    def build(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
        base, exponent = arguments
        return _c_pow(builder, "powf", base, builder.sitofp(exponent, base.type))

    return types.float32(types.float32, types.int64), build


@overload(exact_power)
def _exact_power(base: Any, exponent: Any) -> Any:
    if isinstance(exponent, types.Integer) and base in (types.float64, types.float32):
        power = _float64_power if base == types.float64 else _float32_power

        def exact(base: Any, exponent: Any) -> Any:
            return power(base, exponent)

        return exact

    def plain(base: Any, exponent: Any) -> Any:
        return base**exponent

    return plain


@overload(transpose)
def _transpose(value: Any) -> Any:
    if isinstance(value, types.BaseTuple):

        def itself(value: Any) -> Any:
            return value

        return itself

    def transposed(value: Any) -> Any:
        return value.T

    return transposed


@overload(as_any_array)
def _as_any_array(value: Any, dtype: Any = None) -> Any:
    if isinstance(value, types.Array):

        def as_array(value: Any, dtype: Any = None) -> Any:
            return np.asarray(value, dtype)

        return as_array
    return None


# NEP 50 for float32 code: numpy rounds a Python float (or int) that meets a float32 to float32
# first, and computes in float32; numba would widen to float64. In code compiled with
# ``float32_like_numpy=True``, each arithmetic operator and comparison goes through a stand-in
# that does what numpy does with a float32 and a Python scalar (every float64 there is taken to
# be one, as in the parameters and literals of the dynamics).
_WEAK_OPERATORS = {
    operator.add: "add",
    operator.sub: "sub",
    operator.mul: "mul",
    operator.truediv: "truediv",
    operator.lt: "lt",
    operator.le: "le",
    operator.gt: "gt",
    operator.ge: "ge",
    operator.eq: "eq",
    operator.ne: "ne",
}
_INPLACE = {
    operator.iadd: operator.add,
    operator.isub: operator.sub,
    operator.imul: operator.mul,
    operator.itruediv: operator.truediv,
}


def _is_weak(value_type: Any) -> bool:
    return value_type == types.float64 or isinstance(value_type, types.IntegerLiteral)


def _weak_stand_in(function: Callable) -> Callable:
    def stand_in(left: Any, right: Any) -> Any:
        return function(left, right)

    stand_in.__name__ = stand_in.__qualname__ = f"weak_{_WEAK_OPERATORS[function]}"

    @overload(stand_in, prefer_literal=True)
    def _typed(left: Any, right: Any) -> Any:
        if left == types.float32 and _is_weak(right):

            def weak_right(left: Any, right: Any) -> Any:
                return function(left, np.float32(right))

            return weak_right
        if right == types.float32 and _is_weak(left):

            def weak_left(left: Any, right: Any) -> Any:
                return function(np.float32(left), right)

            return weak_left

        def plain(left: Any, right: Any) -> Any:
            return function(left, right)

        return plain

    return stand_in


_WEAK_STAND_INS = {function: _weak_stand_in(function) for function in _WEAK_OPERATORS}


def _is_numpy_global(func_ir: Any, variable: Any) -> bool:
    try:
        definition = func_ir.get_definition(variable)
    except KeyError:
        return False
    return isinstance(definition, (ir.Global, ir.FreeVar)) and definition.value is np


@register_pass(mutates_CFG=False, analysis_only=False)
class _ScopedRewrites(FunctionPass):
    """Replace ``**``, ``.T`` and ``np.asanyarray`` by palaestra's stand-ins in one function."""

    _name = "palaestra_scoped_rewrites"
    float32_like_numpy = False

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        func_ir = state.func_ir
        func_ir._definitions = build_definitions(func_ir.blocks)
        changed = False
        for block in func_ir.blocks.values():
            body = []
            for statement in block.body:
                if isinstance(statement, ir.Assign) and isinstance(statement.value, ir.Expr):
                    replaced = self._replace(
                        func_ir, block, statement.value, body, self.float32_like_numpy
                    )
                    if replaced is not None:
                        statement.value = replaced
                        changed = True
                body.append(statement)
            block.body = body
        if changed:
            func_ir._definitions = build_definitions(func_ir.blocks)
        return changed

    @staticmethod
    def _replace(func_ir: Any, block: Any, expr: Any, body: list, weak_scalars: bool) -> Any:
        location = expr.loc

        def stand_in(name: str, function: Callable) -> Any:
            variable = block.scope.redefine(f"$palaestra_{name}", location)
            body.append(ir.Assign(ir.Global(name, function, location), variable, location))
            return variable

        if expr.op in ("binop", "inplace_binop") and expr.fn in (operator.pow, operator.ipow):
            return ir.Expr.call(
                stand_in("exact_power", exact_power), (expr.lhs, expr.rhs), (), location
            )
        if weak_scalars and expr.op in ("binop", "inplace_binop"):
            function = _INPLACE.get(expr.fn, expr.fn)
            if function in _WEAK_STAND_INS:
                name = f"weak_{_WEAK_OPERATORS[function]}"
                call = stand_in(name, _WEAK_STAND_INS[function])
                return ir.Expr.call(call, (expr.lhs, expr.rhs), (), location)
        if expr.op == "getattr" and expr.attr == "T":
            return ir.Expr.call(stand_in("transpose", transpose), (expr.value,), (), location)
        if (
            expr.op == "getattr"
            and expr.attr == "asanyarray"
            and _is_numpy_global(func_ir, expr.value)
        ):
            return ir.Global("as_any_array", as_any_array, location)
        return None


@register_pass(mutates_CFG=False, analysis_only=False)
class _ScopedFloat32Rewrites(_ScopedRewrites):
    """The scoped rewrites, and numpy's float32 rules for Python scalars (NEP 50)."""

    _name = "palaestra_scoped_float32_rewrites"
    float32_like_numpy = True


class NativePipeline(CompilerBase):
    """numba's nopython pipeline plus palaestra's scoped rewrites (see the module docstring)."""

    rewrites: type = _ScopedRewrites

    def define_pipelines(self) -> list:
        """Return the default nopython pipeline with the rewrites after IR processing."""
        manager = DefaultPassBuilder.define_nopython_pipeline(self.state)
        manager.add_pass_after(self.rewrites, IRProcessing)
        manager.finalize()
        return [manager]


class Float32Pipeline(NativePipeline):
    """:class:`NativePipeline` whose float32 arithmetic meets Python scalars as numpy's does."""

    rewrites = _ScopedFloat32Rewrites


def _pipeline(float32_like_numpy: bool) -> type:
    return Float32Pipeline if float32_like_numpy else NativePipeline


def njit(
    function: Callable | None = None, *, float32_like_numpy: bool = False, **options: Any
) -> Any:
    """:func:`numba.njit` through :class:`NativePipeline` (usable bare or with options).

    Args:
        function: the Python function to compile.
        float32_like_numpy: compile float32 code with numpy's rules for Python scalars: a
            float64 or an integer literal meeting a float32 is rounded to float32 first, as
            numpy does with a Python float or int (NEP 50), instead of widening to float64.
        options: options of :func:`numba.njit` (such as ``cache=True``).

    Example:
        >>> square = njit(lambda x: x**2)
        >>> square(0.1) == 0.1**2
        True
        >>> half = njit(lambda x: x * 0.1, float32_like_numpy=True)
        >>> bool(half(np.float32(3.0)) == np.float32(3.0) * 0.1)
        True
    """
    decorator = numba.njit(pipeline_class=_pipeline(float32_like_numpy), **options)
    return decorator if function is None else decorator(function)


def register_jitable(function: Callable, *, float32_like_numpy: bool = False) -> Callable:
    """Make ``function`` callable from compiled code, compiled through :class:`NativePipeline`.

    Args:
        function: the Python function.
        float32_like_numpy: as in :func:`njit`.

    Example:
        >>> def double(x):
        ...     return 2 * x
        >>> register_jitable(double) is double
        True
    """
    pipeline = _pipeline(float32_like_numpy)
    return _numba_register_jitable(pipeline_class=pipeline)(function)


class Choice(str):
    """A string parameter (such as ``kinematics_integrator``) that numba compares at compile time.

    A plain string field would be compared with ``==`` on every row of a compiled loop,
    which costs more than the physics; a :class:`Choice` is typed by its value, so
    ``params.kinematics_integrator == "euler"`` becomes a constant.

    Example:
        >>> Choice("euler") == "euler"
        True
    """


class _ChoiceType(types.Type):
    def __init__(self, value: str):
        self.value = value
        super().__init__(name=f"Choice({value!r})")


@typeof_impl.register(Choice)
def _typeof_choice(value: Choice, context: Any) -> _ChoiceType:
    return _ChoiceType(str(value))


register_model(_ChoiceType)(models.OpaqueModel)


@lower_constant(_ChoiceType)
def _lower_choice(context: Any, builder: Any, choice_type: Any, value: Any) -> Any:
    # The value lives in the type; the runtime value carries nothing.
    return context.get_dummy_value()


@overload(operator.eq)
def _choice_equals(choice: Any, text: Any) -> Any:
    if isinstance(choice, _ChoiceType) and isinstance(text, types.StringLiteral):
        equal = choice.value == text.literal_value

        def constant(choice: Any, text: Any) -> Any:
            return equal

        return constant
    return None


def as_named_tuple(params: Any) -> Any:
    """Return a dataclass instance's fields as a named tuple that numba can read.

    String fields become :class:`Choice` values, settled at compile time.

    Example:
        >>> @dataclasses.dataclass(frozen=True)
        ... class Params:
        ...     tau: float = 0.02
        ...     integrator: str = "euler"
        >>> constants = as_named_tuple(Params())
        >>> constants.tau, type(constants.integrator).__name__
        (0.02, 'Choice')
    """
    names = tuple(field.name for field in dataclasses.fields(params))
    tuple_type = _named_tuple_type(type(params), names)
    values = [getattr(params, name) for name in names]
    return tuple_type(*(Choice(v) if isinstance(v, str) else v for v in values))


class _NamedTuples:
    """Where the named tuple classes live, so that pickle finds them by name.

    numba keys a cached function by the pickled contents of its closure: a class pickled by
    name pickles the same in every process, so compiled loops over parameters load from the
    on-disk cache instead of compiling again.
    """


def _named_tuple_type(params_type: type, names: tuple[str, ...]) -> type:
    key = f"{params_type.__module__}.{params_type.__qualname__}".replace(".", "_")
    key = f"{key}_{len(names)}_" + "_".join(names)
    tuple_type = getattr(_NamedTuples, key, None)
    if tuple_type is None:
        tuple_type = collections.namedtuple(f"{params_type.__name__}Tuple", names)  # type: ignore[misc]
        tuple_type.__module__ = __name__
        tuple_type.__qualname__ = f"_NamedTuples.{key}"
        setattr(_NamedTuples, key, tuple_type)
    return tuple_type


_multiply_wide_compiled = numba.njit(pcg64._multiply_wide, cache=True)


@overload(pcg64._multiply_wide)
def _multiply_wide(a: Any, b: Any) -> Any:
    def wide(a: Any, b: Any) -> Any:
        return _multiply_wide_compiled(a, b)

    return wide


_step = numba.njit(pcg64.pcg64_step, cache=True)
_output = numba.njit(pcg64.pcg64_output, cache=True)
_UNIT = 1.0 / 9007199254740992.0


@numba.njit(cache=True)
def compiled_draw_doubles(
    high: np.ndarray,
    low: np.ndarray,
    inc_high: np.ndarray,
    inc_low: np.ndarray,
    rows: np.ndarray,
    out: np.ndarray,
) -> None:
    """Fill ``out[j]`` with the next ``out.shape[1]`` doubles of stream ``rows[j]``."""
    for j in range(rows.shape[0]):
        row = rows[j]
        state_high, state_low = high[row], low[row]
        for column in range(out.shape[1]):
            state_high, state_low = _step(state_high, state_low, inc_high[row], inc_low[row])
            out[j, column] = (_output(state_high, state_low) >> np.uint64(11)) * _UNIT
        high[row], low[row] = state_high, state_low


@numba.njit(cache=True)
def compiled_restart_uniform(
    high: np.ndarray,
    low: np.ndarray,
    inc_high: np.ndarray,
    inc_low: np.ndarray,
    rows: np.ndarray,
    lows: np.ndarray,
    spans: np.ndarray,
    states: np.ndarray,
    elapsed: np.ndarray,
    ended: np.ndarray,
) -> None:
    """Restart ``rows`` on uniform initial states drawn from their own streams, in one pass.

    Row ``r``'s component ``c < len(lows)`` becomes ``lows[c] + spans[c] * u`` for the next
    double ``u`` of stream ``r`` (``Generator.uniform``'s formula, ``spans = highs - lows``),
    its other components 0; its step count becomes 0 and its ended flag False. The same
    values, bit for bit, as drawing with :func:`compiled_draw_doubles` and writing them.
    """
    for j in range(rows.shape[0]):
        row = rows[j]
        state_high, state_low = high[row], low[row]
        for column in range(lows.shape[0]):
            state_high, state_low = _step(state_high, state_low, inc_high[row], inc_low[row])
            unit = (_output(state_high, state_low) >> np.uint64(11)) * _UNIT
            states[row, column] = lows[column] + spans[column] * unit
        for column in range(lows.shape[0], states.shape[1]):
            states[row, column] = 0.0
        high[row], low[row] = state_high, state_low
        elapsed[row] = 0
        ended[row] = False


@numba.njit(cache=True)
def compiled_close_step(
    rewards: np.ndarray,
    terminations: np.ndarray,
    elapsed: np.ndarray,
    restarting: np.ndarray,
    max_steps: int,
) -> Any:
    """:func:`~palaestra.vector.native.bookkeeping.close_step` in one pass.

    ``restarting`` is a mask (all False when no row restarts).
    """
    count = rewards.shape[0]
    truncations = np.empty(count, dtype=np.bool_)
    ended = np.empty(count, dtype=np.bool_)
    ended_rows = np.empty(count, dtype=np.int64)
    ended_count = 0
    for i in range(count):
        if restarting[i]:
            rewards[i] = 0.0
            terminations[i] = False
            elapsed[i] = 0
        else:
            elapsed[i] += 1
        truncations[i] = elapsed[i] >= max_steps
        ended[i] = terminations[i] or truncations[i]
        if ended[i]:
            ended_rows[ended_count] = i
            ended_count += 1
    return truncations, ended, ended_rows[:ended_count]
