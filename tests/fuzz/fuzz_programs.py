"""Random well-formed nbgraph programs, written as source text by Hypothesis strategies.

``programs()`` draws a module that defines ``f(x, y, n, s)`` (and the helpers it calls)
together with the arguments to call it with: ``x`` and ``y`` are 1-d arrays of one length
(float64, float32, int64, int32 or complex128, possibly empty, with NaN/Inf and extreme
integers), ``n`` a small Python int used as a loop count (0 and negative included) and
``s`` a Python or NumPy scalar.

Graph mode fixes a variable's type per graph, so the generator is typed: every expression
carries a *sample* value of its exact type (Python scalar, NumPy scalar or array) and its
result type is found by evaluating the expression on the samples with NumPy itself. A
variable is only ever re-assigned a value of its own type, all ``return`` statements of a
function return the same types, and arrays are only combined elementwise when they are
known to have the same length (their *tag*), so programs stay inside what the README says
graph mode supports. In-place writes go only to arrays the program owns (fresh buffers that
nothing else aliases). Loops always terminate: ``for`` runs over ``range`` of small bounds
or over arrays, and ``while`` loops count their iterations against a bound.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import io
import itertools
import re
import sys
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import harness
import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import nbgraph as ng
from nbgraph.backend.numba_cuda.program import DeviceUnsupportedError
from nbgraph.errors.exceptions import GraphModeError

DTYPES = ("float64", "float32", "int64", "int32", "complex128")
ALLOWED_DTYPES = {"bool", "int32", "int64", "float32", "float64", "complex128"}
SAMPLE_LENGTH = 4

# Element values of input arrays, simplest first (Hypothesis shrinks towards the start).
FLOAT_VALUES = (
    0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    -2.5,
    3.0,
    10.0,
    0.1,
    np.nan,
    np.inf,
    -np.inf,
    1e300,
    -1e300,
    1e-300,
    1e10,
    -0.0,
)
INT_VALUES = (0, 1, -1, 2, 3, -5, 7, 100, 2**31 - 1, -(2**31), 2**62, -(2**63), 2**63 - 1)
FLOAT_LITERALS = ("0.5", "1.0", "2.0", "-1.5", "0.0", "3.25", "1e10", "-0.25", "np.nan", "np.inf")
INT_LITERALS = ("1", "2", "0", "3", "-1", "5", "10", "100")


# ---------------------------------------------------------------------------------------
# Values: types by sample
# ---------------------------------------------------------------------------------------


def type_key(sample: Any) -> tuple[str, str, int]:
    """The exact type of a sample: Python kind, NumPy scalar dtype or array dtype/rank."""
    if isinstance(sample, np.ndarray):
        return ("array", sample.dtype.name, sample.ndim)
    if isinstance(sample, np.generic):
        return ("np", sample.dtype.name, 0)
    return (type(sample).__name__, "", 0)


def _valid(sample: Any) -> bool:
    if type(sample) in (bool, int, float):
        return True
    if isinstance(sample, np.generic):
        return sample.dtype.name in ALLOWED_DTYPES
    if isinstance(sample, np.ndarray):
        return sample.dtype.name in ALLOWED_DTYPES and sample.ndim in (1, 2) and sample.size > 0
    return False


def _kind(sample: Any) -> str:
    """NumPy's kind letter of a sample's type ('b', 'i', 'f' or 'c')."""
    if type(sample) in (bool, int, float):
        return {bool: "b", int: "i", float: "f"}[type(sample)]
    return sample.dtype.kind


def _is_array(sample: Any) -> bool:
    return isinstance(sample, np.ndarray)


def array_sample(dtype: str, ndim: int = 1) -> np.ndarray:
    """A small array of the dtype with distinct, non-zero entries."""
    values = {
        "b": [True, False, True, True],
        "i": [2, 3, 5, 7],
        "f": [1.5, 2.5, -0.5, 4.0],
        "c": [1 + 2j, 2 - 1j, -0.5j, 3.0],
    }[np.dtype(dtype).kind]
    base = np.array(values, dtype=dtype)
    return base if ndim == 1 else np.stack([base, base[::-1]])


def scalar_sample(dtype: str) -> Any:
    """A NumPy scalar of the dtype."""
    return array_sample(dtype)[1]


@dataclass(frozen=True)
class Val:
    """An expression or variable: its text, a sample of its type, its length tag.

    ``tag`` names the length of an array ("L" is the inputs' length; every other array
    whose length is not known gets a tag of its own), so that arrays are only combined
    elementwise when their lengths are known to agree. ``fresh`` says that the value is a
    new array that nothing else refers to. ``const`` marks values known while tracing
    (made of literals only); ``value`` is then the value itself.
    """

    src: str
    sample: Any
    tag: str = ""
    fresh: bool = False
    const: bool = False
    value: Any = None

    @property
    def key(self) -> tuple[str, str, int]:
        return type_key(self.sample)


@dataclass(frozen=True)
class Var(Val):
    """A variable in scope."""

    owned: bool = False  # a buffer the program may write into in place
    readonly: bool = False  # loop variables and while-loop counters
    index_for: str = ""  # the tag of arrays this variable is a valid index of
    dyn: bool = False  # re-assignable with an array of any length


def evaluate(template: str, children: Sequence[Val], values: bool = False) -> Any:
    """``template`` applied to the children's samples (or, with ``values``, to their constant
    values), or None where that raises or gives a type the generator does not use."""
    names = [f"_{i}" for i in range(len(children))]
    env = {
        "np": np,
        **{name: child.value if values else child.sample for name, child in zip(names, children)},
    }
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("error")
        try:
            value = eval(template.format(*names), env)
        except Exception:
            return None
    return value if _valid(value) else None


# Operations: (template, shape rule, complex allowed). Shape rules: "ew" elementwise (array
# operands must share one tag), "keep" (the result has its first array operand's tag),
# "new" (a new length), "view" (same as "keep" but the result is a view, not fresh),
# "newview" (a view of a new length).
UNARY = (
    ("(-{0})", "ew", True),
    ("abs({0})", "ew", True),
    ("np.abs({0})", "ew", True),
    ("np.sqrt({0})", "ew", True),
    ("np.exp({0})", "ew", True),
    ("np.sin({0})", "ew", True),
    ("np.cos({0})", "ew", True),
    ("np.tanh({0})", "ew", True),
    ("np.log({0})", "ew", True),
    ("np.floor({0})", "ew", False),
    ("np.square({0})", "ew", True),
    ("np.sign({0})", "ew", False),
    ("np.isnan({0})", "ew", True),
    ("np.isfinite({0})", "ew", True),
    ("np.conj({0})", "ew", True),
    ("({0} ** 2)", "ew", True),
    ("np.clip({0}, -2, 3)", "ew", False),
    ("np.round({0}, 1)", "ew", False),
    ("np.arctan({0})", "ew", False),
    ("np.expm1({0})", "ew", False),
    ("np.ceil({0})", "ew", False),
    ("np.logical_not({0})", "ew", True),
    ("(~{0})", "ew", False),
)
BINARY = (
    ("({0} + {1})", "ew", True),
    ("({0} - {1})", "ew", True),
    ("({0} * {1})", "ew", True),
    ("({0} / {1})", "ew", True),
    ("({0} // {1})", "ew", False),
    ("({0} % {1})", "ew", False),
    ("({0} < {1})", "ew", False),
    ("({0} <= {1})", "ew", False),
    ("({0} > {1})", "ew", False),
    ("({0} >= {1})", "ew", False),
    ("({0} == {1})", "ew", True),
    ("({0} != {1})", "ew", True),
    ("np.maximum({0}, {1})", "ew", False),
    ("np.minimum({0}, {1})", "ew", False),
    ("np.arctan2({0}, {1})", "ew", False),
    ("np.hypot({0}, {1})", "ew", False),
    ("({0} & {1})", "ew", False),
    ("({0} | {1})", "ew", False),
    ("np.where({0} > {1}, {0}, {1})", "ew", False),
    ("np.fmax({0}, {1})", "ew", False),
    ("np.power({0}, {1})", "ew", True),
)
REDUCE = (
    ("np.sum({0})", "scalar", True),
    ("np.mean({0})", "scalar", True),
    ("np.max({0})", "scalar", False),
    ("np.min({0})", "scalar", False),
    ("np.prod({0})", "scalar", True),
    ("np.any({0})", "scalar", True),
    ("np.all({0})", "scalar", True),
    ("np.argmax({0})", "scalar", False),
    ("np.argmin({0})", "scalar", False),
    ("np.std({0})", "scalar", True),
    ("np.var({0})", "scalar", True),
    ("np.count_nonzero({0})", "scalar", True),
    ("{0}.sum()", "scalar", True),
    ("{0}.max()", "scalar", False),
    ("np.median({0})", "scalar", False),
    ("len({0})", "scalar", True),
)
ARRAY_OPS = (
    ("np.cumsum({0})", "keep", True),
    ("np.sort({0})", "keep", False),
    ("{0}[::-1]", "view", True),
    ("{0}[1:]", "newview", True),
    ("{0}[:-1]", "newview", True),
    ("{0}.copy()", "keep", True),
    ("np.zeros_like({0})", "keep", True),
    ("np.ones_like({0})", "keep", True),
    ("{0}.astype(np.float64)", "keep", False),
    ("np.arange(len({0}))", "keep", True),
    ("np.linspace(0.0, 1.0, len({0}))", "keep", True),
    ("np.roll({0}, 1)", "keep", True),
    ("np.diff({0})", "new", False),
    ("np.flip({0})", "view", True),
    ("np.sum({0}, axis=0)", "new", True),
    ("np.max({0}, axis=-1)", "new", False),
    ("{0}.T", "newview", True),
)
ARRAY_BINARY = (
    ("np.concatenate(({0}, {1}))", "new", True),
    ("np.outer({0}, {1})", "new", True),
    ("{0}[{1} > 0]", "ew-new", False),
    ("np.dot({0}, {1})", "ew-scalar", True),
    ("({0} @ {1})", "ew-scalar", True),
)


def combine(template: str, rule: str, children: Sequence[Val], tags: itertools.count) -> Val | None:
    """Apply an operation to typed operands, or None where the types or lengths disagree."""
    array_tags = {child.tag for child in children if _is_array(child.sample)}
    if rule.startswith("ew") and len(array_tags) > 1:
        return None
    sample = evaluate(template, children)
    if sample is None:
        return None
    if not _is_array(sample):
        src = template.format(*(c.src for c in children))
        if children and all(c.const for c in children):
            # Known while tracing, so computed then (an error too: it may come before the
            # prints that precede it eagerly, regressions/constant_error_while_tracing_*).
            value = evaluate(template, children, values=True)
            return Val(src, sample) if value is None else Val(src, sample, const=True, value=value)
        return Val(src, sample)
    if rule in ("scalar", "ew-scalar"):
        return None
    first = next(iter(array_tags), "")
    tag = first if rule in ("ew", "keep", "view") else f"u{next(tags)}"
    fresh = rule not in ("view", "newview")
    return Val(template.format(*(c.src for c in children)), sample, tag, fresh)


def _safe_cast(source: Any, target: Any) -> bool:
    """Whether a value of ``source``'s type converts to ``target``'s type without a
    platform-dependent result (no float to int, no complex to real, no int narrowing)."""
    order = "bifc"
    sk, tk = _kind(source), _kind(target)
    if tk == "b":
        return sk != "c"
    if order.index(sk) > order.index(tk):
        return False
    if sk == tk == "i" and isinstance(source, np.generic | np.ndarray):
        return source.dtype.itemsize <= np.asarray(target).dtype.itemsize
    return True


def constant(src: str) -> Val:
    """A value made of literals only."""
    value = eval(src, {"np": np})
    return Val(src, value, const=True, value=value)


# ---------------------------------------------------------------------------------------
# The writer: one function's source
# ---------------------------------------------------------------------------------------


@dataclass
class Helper:
    """A helper function the program defines: its name, parameter and return samples."""

    name: str
    params: list[Val]
    result: Val


@dataclass
class Writer:
    """Draws the statements of one function, keeping track of variables and their types."""

    draw: Callable
    names: itertools.count
    helpers: list[Helper]
    returns: list[Val]  # the type of each returned value (one: not a tuple)
    in_f: bool  # writing f (helpers return arrays of length "L" and assert nothing)
    scopes: list[dict[str, Var]] = field(default_factory=lambda: [{}])
    lines: list[str] = field(default_factory=list)
    indent: int = 1
    loops: int = 0
    open_lists: list[tuple[str, Val]] = field(default_factory=list)
    unread: set[str] = field(default_factory=set)
    appended: set[str] = field(default_factory=set)
    constructs: set[str] = field(default_factory=set)  # Python constructs used (below)
    python: bool = False  # whether to draw them

    # -- drawing ----------------------------------------------------------------------

    def index(self, count: int) -> int:
        return self.draw(st.integers(0, count - 1))

    def pick(self, seq: Sequence[Any]) -> Any:
        return seq[self.index(len(seq))]

    def chance(self, percent: int) -> bool:
        """True with the given probability; shrinks to False."""
        return self.draw(st.integers(0, 99)) >= 100 - percent

    def weighted(self, options: Sequence[tuple[str, int]]) -> str:
        options = [(name, weight) for name, weight in options if weight > 0]
        roll = self.draw(st.integers(0, sum(weight for _, weight in options) - 1))
        for name, weight in options:
            if roll < weight:
                return name
            roll -= weight
        raise AssertionError("unreachable")

    def fresh_name(self, prefix: str) -> str:
        return f"{prefix}{next(self.names)}"

    # -- scope ------------------------------------------------------------------------

    def visible(self) -> list[Var]:
        return [var for scope in self.scopes for var in scope.values()]

    def bind(self, var: Var) -> None:
        self.scopes[-1][var.src] = var

    def emit(self, line: str) -> None:
        """Add a line, noting which variables it reads and which it leaves unread."""
        target = re.match(r"(\w+)(\[[^=]*\])? *([-+*]?=) ", line)
        words = set(re.findall(r"\b[a-z]\w*\b", line))
        if target and target[3] == "=" and not target[2]:
            words.discard(target[1])
        self.unread -= words
        if target:
            self.unread.add(target[1])
        self.lines.append("    " * self.indent + line)

    def sink(self, scopes: Sequence[dict[str, Var]]) -> None:
        """Print the variables of ``scopes`` that nothing has read since they were set.

        Graph mode drops computations whose results are unused, so every value is read:
        what it computes is then compared with eager Python, as is each exception it raises.
        """
        names = [
            name
            for scope in scopes
            for name, var in scope.items()
            if name in self.unread and not var.readonly
        ]
        if names:
            self.emit(f'print("{self.fresh_name("k")}", {", ".join(names)})')

    def nested(self, header: str, body: Callable[[], None]) -> None:
        """Emit ``header`` and a block drawn by ``body`` in a new scope."""
        self.emit(header)
        self.indent += 1
        self.scopes.append({})
        start = len(self.lines)
        body()
        self.sink(self.scopes[-1:])
        if len(self.lines) == start:
            self.emit("pass")
        self.scopes.pop()
        self.indent -= 1

    # -- expressions ------------------------------------------------------------------

    def literal(self) -> Val:
        """A scalar literal: Python int, float or bool, or a typed NumPy scalar."""
        kind = self.weighted([("float", 4), ("int", 3), ("bool", 1), ("np", 2)])
        if kind == "float":
            return constant(self.pick(FLOAT_LITERALS))
        if kind == "int":
            return constant(self.pick(INT_LITERALS))
        if kind == "bool":
            return constant(self.pick(("True", "False")))
        dtype = self.pick(("float64", "float32", "int64", "int32"))
        number = self.pick(INT_LITERALS if dtype.startswith("int") else FLOAT_LITERALS[:8])
        return constant(f"np.{dtype}({number})")

    def atom(self) -> Val:
        variables = self.visible()
        if variables and not self.chance(25):
            return self.pick(variables)
        return self.literal()

    def array(self, depth: int) -> Val | None:
        """An array expression: a variable or an operation making one."""
        arrays = [var for var in self.visible() if _is_array(var.sample)]
        if not arrays:
            return None
        if depth <= 0 or not self.chance(30):
            return self.pick(arrays)
        template, rule, complex_ok = self.pick(ARRAY_OPS)
        operand = self.pick(arrays)
        made = (
            None
            if not complex_ok and _kind(operand.sample) == "c"
            else combine(template, rule, [operand], self.names)
        )
        return made if made is not None and _is_array(made.sample) else operand

    def partner(self, first: Val, depth: int) -> Val:
        """A second operand for ``first``: often a variable of the same length."""
        if _is_array(first.sample) and self.chance(50):
            same = [v for v in self.visible() if _is_array(v.sample) and v.tag == first.tag]
            if same:
                return self.pick(same)
        return self.expr(depth) if self.chance(50) else self.atom()

    def expr(self, depth: int = 2) -> Val:
        """Any expression of at most ``depth`` nested operations."""
        for _ in range(3):
            made = self._expr(depth) if depth > 0 else self.atom()
            if made is not None:
                return made
        return self.atom()

    def _expr(self, depth: int) -> Val | None:
        kind = self.weighted(
            [
                ("atom", 3),
                ("unary", 3),
                ("binary", 6),
                ("reduce", 3),
                ("index", 3),
                ("call", 2 if self.helpers else 0),
                ("ternary", 1),
                ("array", 2),
                ("array2", 1),
                ("builtin", 1),
            ]
        )
        if kind == "atom":
            return self.atom()
        if kind == "unary":
            return self.operation(self.pick(UNARY), [self.expr(depth - 1)])
        if kind == "binary":
            first = self.expr(depth - 1)
            return self.operation(self.pick(BINARY), [first, self.partner(first, depth - 1)])
        if kind == "reduce":
            operand = self.array(depth - 1)
            return operand and self.operation(self.pick(REDUCE), [operand])
        if kind == "index":
            return self.indexed(depth)
        if kind == "call":
            return self.call(depth)
        if kind == "ternary":
            return self.ternary(depth)
        if kind == "array":
            return self.array(depth)
        if kind == "array2":
            first = self.array(depth - 1)
            return first and self.operation(
                self.pick(ARRAY_BINARY), [first, self.partner(first, depth - 1)]
            )
        first = self.expr(depth - 1)
        if _is_array(first.sample):
            return None
        second = self.typed(first, depth - 1)
        return combine(
            self.pick(("max({0}, {1})", "min({0}, {1})")), "scalar", [first, second], self.names
        )

    def operation(self, op: tuple[str, str, bool], operands: list[Val]) -> Val | None:
        template, rule, complex_ok = op
        if not complex_ok and any(_kind(o.sample) == "c" for o in operands):
            return None
        if "**" in template or "power" in template:
            # Python scalars raised to powers change type with the values (2 ** -1 is a
            # float, (-8.0) ** 0.5 complex); NumPy operands keep one type.
            if not any(isinstance(o.sample, np.generic | np.ndarray) for o in operands):
                return None
        return combine(template, rule, operands, self.names)

    def indexed(self, depth: int) -> Val | None:
        """``a[i]``: an element of a 1-d array, at a safe index where one is in scope."""
        arrays = [v for v in self.visible() if _is_array(v.sample) and v.sample.ndim == 1]
        if not arrays:
            return None
        array = self.pick(arrays)
        indices = [v for v in self.visible() if v.index_for and v.index_for == array.tag]
        if indices and not self.chance(20):
            index = self.pick(indices).src
        else:
            index = self.pick(("0", f"len({array.src}) // 2", "-1", "1"))
        return Val(f"{array.src}[{index}]", array.sample[1])

    def call(self, depth: int) -> Val:
        helper = self.pick(self.helpers)
        args = [self.typed(param, depth - 1) for param in helper.params]
        result = helper.result
        return Val(
            f"{helper.name}({', '.join(a.src for a in args)})",
            result.sample,
            "L" if result.tag else "",
            False,
        )

    def ternary(self, depth: int) -> Val | None:
        first = self.expr(depth - 1)
        second = self.typed(first, depth - 1)
        condition = self.condition(depth - 1)
        return Val(f"({first.src} if {condition} else {second.src})", first.sample, first.tag)

    def condition(self, depth: int = 1) -> str:
        """A boolean condition (Python or NumPy bool)."""
        for _ in range(3):
            kind = self.weighted(
                [
                    ("compare", 6),
                    ("any", 2),
                    ("len", 1),
                    ("isnan", 1),
                    ("not", 1),
                    ("andor", 2 if depth > 0 else 0),
                    ("chain", 1),
                    ("in", 1),
                ]
            )
            made = self._condition(kind, depth)
            if made is not None:
                return made
        return self.pick(("True", "False"))

    def _condition(self, kind: str, depth: int) -> str | None:
        if kind in ("compare", "chain", "in"):
            first = self.expr(depth)
            if _is_array(first.sample) or _kind(first.sample) == "c":
                return None
            second, third = self.partner(first, 0), self.atom()
            if _is_array(second.sample) or _is_array(third.sample):
                return None  # a chain's type would depend on the values
            op = self.pick(("<", ">", "<=", ">=", "==", "!="))
            if kind == "chain":
                made = combine(
                    f"({{0}} {op} {{1}} < {{2}})", "scalar", [first, second, third], self.names
                )
            elif kind == "in":
                made = combine("({0} in (0, 1, 3))", "scalar", [first], self.names)
            else:
                made = combine(f"({{0}} {op} {{1}})", "scalar", [first, second], self.names)
        elif kind == "any":
            array = self.array(depth)
            if array is None or _kind(array.sample) == "c":
                return None
            made = combine(
                self.pick(("np.any({0} > {1})", "np.all({0} < {1})")),
                "scalar",
                [array, self.atom()],
                self.names,
            )
        elif kind == "len":
            array = self.array(0)
            return array and f"len({array.src}) > {self.pick(('0', '1', '2'))}"
        elif kind == "isnan":
            made = combine("np.isnan({0})", "scalar", [self.expr(depth)], self.names)
        elif kind == "not":
            return f"not {self.condition(depth - 1)}"
        else:
            op = self.pick(("and", "or"))
            return f"({self.condition(depth - 1)} {op} {self.condition(depth - 1)})"
        if made is None or _is_array(made.sample) or _kind(made.sample) != "b":
            return None
        return made.src

    def typed(self, want: Val, depth: int = 1, any_tag: bool = False, avoid: str = "") -> Val:
        """An expression of exactly ``want``'s type (and length tag, unless ``any_tag``).

        Variables of the type are preferred, the latest first (so that what a function
        computes reaches its result); ``avoid`` names one not to use on its own.
        """
        matches = [v for v in self.visible() if self.fits(v, want, any_tag) and v.src != avoid]
        matches.reverse()
        if matches and self.chance(50):
            return self.pick(matches)
        for _ in range(3):
            cast = self.cast(self.expr(depth), want, any_tag)
            if cast is not None:
                return cast
        if matches:
            return self.pick(matches)
        return self.zero_of(want, any_tag)

    @staticmethod
    def fits(value: Val, want: Val, any_tag: bool) -> bool:
        if value.key != want.key:
            return False
        return any_tag or not _is_array(want.sample) or value.tag == want.tag

    def cast(self, value: Val, want: Val, any_tag: bool) -> Val | None:
        """``value`` converted to ``want``'s type where that is well defined, else None."""
        if self.fits(value, want, any_tag):
            return value
        if _is_array(value.sample) != _is_array(want.sample):
            return None
        if not _safe_cast(value.sample, want.sample):
            return None
        kind, dtype, ndim = want.key
        if kind == "array":
            if value.sample.ndim != ndim or not (any_tag or value.tag == want.tag):
                return None
            return Val(f"{value.src}.astype(np.{dtype})", want.sample, value.tag, True)
        if kind == "int" and _kind(value.sample) != "b":
            # Python ints are 64-bit in graphs (README): int() of a NumPy integer near the
            # int64 limits, added to, would overflow in graph mode and not eagerly.
            return None
        function = f"np.{'bool_' if dtype == 'bool' else dtype}" if kind == "np" else kind
        return combine(f"{function}({{0}})", "scalar", [value], self.names)

    def zero_of(self, want: Val, any_tag: bool) -> Val:
        """A constant of ``want``'s type."""
        kind, dtype, ndim = want.key
        if kind == "array":
            same = [
                v
                for v in self.visible()
                if _is_array(v.sample) and v.sample.ndim == ndim and (any_tag or v.tag == want.tag)
            ]
            if same:
                model = self.pick(same)
                return Val(
                    f"np.zeros_like({model.src}, dtype=np.{dtype})", want.sample, model.tag, True
                )
            shape = "3" if ndim == 1 else "(2, 3)"
            return Val(f"np.zeros({shape}, dtype=np.{dtype})", want.sample, want.tag, True)
        if kind == "np":
            return constant(f"np.{'bool_' if dtype == 'bool' else dtype}(0)")
        return constant({"bool": "False", "int": "0", "float": "0.0"}[kind])

    def unaliased(self, value: Val) -> Val:
        """``value``, copied if it is a view of (or the same array as) an owned buffer."""
        if not _is_array(value.sample) or value.fresh:
            return value
        owned = [v.src for v in self.visible() if v.owned]
        if any(re.search(rf"\b{name}\b", value.src) for name in owned):
            return replace(value, src=f"{value.src}.copy()", fresh=True)
        return value

    # -- statements -------------------------------------------------------------------

    def block(self, most: int, depth: int) -> None:
        for _ in range(self.draw(st.integers(1, most))):
            self.statement(depth)

    def statement(self, depth: int) -> None:
        nest = depth < 3
        kind = self.weighted(
            [
                ("assign", 8),
                ("update", 6),
                ("if", 3 if nest else 0),
                ("for", 3 if nest else 0),
                ("while", 1 if nest else 0),
                ("list", 1 if depth < 2 else 0),
                ("print", 2),
                ("buffer", 2),
                ("setitem", 4 if any(v.owned for v in self.visible()) else 0),
                ("append", 6 if self.open_lists else 0),
                ("break", 2 if self.loops else 0),
                ("continue", 1 if self.loops else 0),
                ("return", 1),
                ("assert", 1 if self.in_f else 0),
                ("raise", 1),
                *(
                    (name, 1 if self.python and (nest or name in ("del", "alias")) else 0)
                    for name in PYTHON_CONSTRUCTS
                ),
            ]
        )
        if kind in PYTHON_CONSTRUCTS:
            self.constructs.add(kind)
        getattr(self, f"s_{kind}")(depth)

    def s_assign(self, depth: int) -> None:
        value = self.unaliased(self.expr(2))
        name = self.fresh_name("v")
        self.emit(f"{name} = {value.src}")
        dyn = _is_array(value.sample) and value.sample.ndim == 1 and self.chance(15)
        tag = f"d{name}" if dyn else value.tag
        self.bind(Var(name, value.sample, tag, const=value.const, value=value.value, dyn=dyn))

    def s_update(self, depth: int) -> None:
        targets = [v for v in self.visible() if not v.readonly]
        if not targets:
            self.s_assign(depth)
            return
        target = self.pick(targets)
        for scope in self.scopes:  # no longer known while tracing
            if target.src in scope:
                scope[target.src] = replace(target, const=False, value=None)
        op = self.pick(("=", "+=", "-=", "*="))
        counter = type(target.sample) is int
        if op != "=" and (not _is_array(target.sample) or target.owned):
            operand = self.expr(1)
            result = None
            if not (_is_array(operand.sample) and not _is_array(target.sample)):
                result = combine(f"({{0}} {op[0]} {{1}})", "ew", [target, operand], self.names)
            if (
                result is not None
                and self.fits(result, target, target.dyn)
                and not (counter and (op == "*=" or self.grows(operand.src)))
            ):
                self.emit(f"{target.src} {op} {operand.src}")
                return
        value = self.unaliased(self.typed(target, 2, any_tag=target.dyn, avoid=target.src))
        if target.owned and not value.fresh:
            value = replace(value, src=f"{value.src}.copy()")
        if counter and self.grows(value.src):
            self.emit(f"{target.src} += 1")
        else:
            self.emit(f"{target.src} = {value.src}")

    def grows(self, src: str) -> bool:
        """Whether ``src`` reads a Python int variable that loops may update.

        Python ints are 64-bit in graphs and unbounded eagerly (README), so a Python int is
        only updated from values that cannot feed back into it (no doubling in a loop).
        """
        names = [v.src for v in self.visible() if type(v.sample) is int and not v.readonly]
        return any(re.search(rf"\b{name}\b", src) for name in names)

    def s_buffer(self, depth: int) -> None:
        arrays = [v for v in self.visible() if _is_array(v.sample) and v.sample.ndim == 1]
        if not arrays:
            self.s_assign(depth)
            return
        model = self.pick(arrays)
        dtype = model.sample.dtype.name
        template, sample = self.pick(
            (
                ("np.zeros_like({0})", model.sample),
                ("{0}.copy()", model.sample),
                ("np.full(len({0}), 1.5)", array_sample("float64")),
                ("np.zeros(len({0}), dtype=np.int64)", array_sample("int64")),
                (f"np.ones(len({{0}}), dtype=np.{dtype})", model.sample),
            )
        )
        name = self.fresh_name("b")
        self.emit(f"{name} = {template.format(model.src)}")
        self.bind(Var(name, sample, model.tag, True, owned=True))

    def s_setitem(self, depth: int) -> None:
        target = self.pick([v for v in self.visible() if v.owned])
        indices = [v.src for v in self.visible() if v.index_for == target.tag]
        index = self.pick(indices) if indices and not self.chance(15) else self.pick(("0", "-1"))
        value = self.expr(1)
        if _is_array(value.sample) or not _safe_cast(value.sample, target.sample):
            value = self.typed(Val("", target.sample[1]), 1)
        op = self.pick(("=", "+="))
        element = Val("", target.sample[1])
        total = combine("({0} + {1})", "ew", [element, value], self.names)
        if total is None or total.key != element.key:
            op = "="
        self.emit(f"{target.src}[{index}] {op} {value.src}")

    def s_if(self, depth: int) -> None:
        self.nested(f"if {self.condition()}:", lambda: self.block(3, depth + 1))
        for _ in range(self.draw(st.integers(0, 2))):
            self.nested(f"elif {self.condition()}:", lambda: self.block(2, depth + 1))
        if self.chance(50):
            self.nested("else:", lambda: self.block(2, depth + 1))

    def loop_header(self) -> tuple[str, list[Var]]:
        """A ``for`` header over a range or an array, and the variables it binds."""
        arrays = [v for v in self.visible() if _is_array(v.sample) and v.sample.ndim == 1]
        kind = self.weighted(
            [
                ("range", 5),
                ("range_len", 4 if arrays else 0),
                ("array", 2 if arrays else 0),
                ("enumerate", 2 if arrays else 0),
                ("zip", 1 if len(arrays) > 1 else 0),
            ]
        )
        i = self.fresh_name("i")
        if kind == "range":
            bound = self.pick(
                ("n", "3", "n + 1", "2", "0", "min(n, 4)")
                if "n" in self.scopes[0]
                else ("3", "2", "0")
            )
            return f"for {i} in range({bound}):", [Var(i, 3, readonly=True)]
        array = self.pick(arrays)
        if kind == "range_len":
            bounds = self.pick(
                (f"len({array.src})", f"1, len({array.src})", f"len({array.src}) - 1, -1, -1")
            )
            return f"for {i} in range({bounds}):", [Var(i, 3, readonly=True, index_for=array.tag)]
        element = Var(self.fresh_name("e"), array.sample[1], readonly=True)
        if kind == "array":
            return f"for {element.src} in {array.src}:", [element]
        if kind == "enumerate":
            return f"for {i}, {element.src} in enumerate({array.src}):", [
                Var(i, 3, readonly=True, index_for=array.tag),
                element,
            ]
        other = self.pick(arrays)
        second = Var(self.fresh_name("e"), other.sample[1], readonly=True)
        return f"for {element.src}, {second.src} in zip({array.src}, {other.src}):", [
            element,
            second,
        ]

    def loop(self, depth: int, body: Callable[[], None]) -> None:
        """A ``for`` or counted ``while`` loop whose body is drawn by ``body``."""
        self.loops += 1
        if self.chance(25):
            counter = self.fresh_name("w")
            bound = self.pick(("n", "3", "len(x)") if "x" in self.scopes[0] else ("3", "2"))
            self.emit(f"{counter} = 0")
            test = f"{counter} < {bound}"
            if self.chance(50):
                test = f"{test} and {self.condition(0)}"

            def counted() -> None:
                self.emit(f"{counter} += 1")
                self.bind(Var(counter, 3, readonly=True))
                body()

            self.nested(f"while {test}:", counted)
        else:
            header, bound = self.loop_header()

            def iterate() -> None:
                for var in bound:
                    self.bind(var)
                body()

            self.nested(header, iterate)
        self.loops -= 1

    def s_for(self, depth: int) -> None:
        self.loop(depth, lambda: self.block(4, depth + 1))

    s_while = s_for

    def s_list(self, depth: int) -> None:
        """A list filled in a loop, then made an array (or a list comprehension)."""
        name = self.fresh_name("lst")
        arrays = [
            v for v in self.visible() if _is_array(v.sample) and v.sample.ndim == 1 and v.tag == "L"
        ]
        if arrays and self.chance(20):
            source = self.pick(arrays)
            element = Var(self.fresh_name("e"), source.sample[1], readonly=True)
            self.scopes.append({element.src: element})
            item = self.typed(Val("", 1.5), 1)
            self.scopes.pop()
            result = self.fresh_name("v")
            self.emit(f"{result} = np.array([{item.src} for {element.src} in {source.src}])")
            self.bind(Var(result, array_sample("float64"), f"u{next(self.names)}", True))
            return
        item_kind = self.weighted([("float", 3), ("npscalar", 2), ("array", 2 if arrays else 0)])
        if item_kind == "float":
            item, convert = Val("", 1.5), "np.array({0})"
        elif item_kind == "npscalar":
            dtype = self.pick(DTYPES[:4])
            item, convert = Val("", scalar_sample(dtype)), f"np.array({{0}}, dtype=np.{dtype})"
        else:
            model = self.pick(arrays)
            item, convert = Val("", model.sample, "L"), "np.stack({0})"
        self.emit(f"{name} = []")
        self.open_lists.append((name, item))
        self.loop(depth, lambda: self.list_body(name, item, depth))
        self.open_lists.pop()
        result = self.fresh_name("v")
        self.emit(f"{result} = {convert.format(name)}")
        sample = (
            np.stack([item.sample] * 2) if _is_array(item.sample) else np.array([item.sample] * 3)
        )
        self.bind(Var(result, sample, f"u{next(self.names)}", True))

    def list_body(self, name: str, item: Val, depth: int) -> None:
        self.block(3, depth + 1)
        if name not in self.appended:
            self.emit(f"{name}.append({self.unaliased(self.typed(item, 2)).src})")
        self.appended.discard(name)

    def s_append(self, depth: int) -> None:
        name, item = self.pick(self.open_lists)
        self.emit(f"{name}.append({self.unaliased(self.typed(item, 2)).src})")
        self.appended.add(name)

    def s_print(self, depth: int) -> None:
        label = self.fresh_name("p")
        values = [self.expr(1) for _ in range(self.draw(st.integers(1, 3)))]
        form = self.pick(("plain", "fstring", "sep", "percent", "format"))
        scalars = [v for v in values if not _is_array(v.sample)]
        if form == "fstring":
            parts = [f"{{{v.src}{self.format_spec(v)}}}" for v in values]
            self.emit(f'print(f"{label} {" ".join(parts)}")')
        elif form == "sep":
            joined = ", ".join(v.src for v in values)
            self.emit(f'print("{label}", {joined}, sep="; ", end="|\\n")')
        elif form == "percent" and scalars and _kind(scalars[0].sample) != "c":
            self.emit(f'print("{label} %.3f %s" % ({scalars[0].src}, {values[-1].src}))')
        elif form == "format" and scalars:
            self.emit(f'print("{label} {{:>8}} {{}}".format({scalars[0].src}, {values[0].src}))')
        else:
            self.emit(f'print("{label}", {", ".join(v.src for v in values)})')

    def format_spec(self, value: Val) -> str:
        if _is_array(value.sample):
            return ""
        kind = _kind(value.sample)
        if kind == "f":
            return self.pick(("", ":.3f", ":.2e", ":g", ":>10"))
        if kind == "i":
            return self.pick(("", ":d", ":>5", ":+d"))
        return self.pick(("", ":.2f")) if kind == "c" else ""

    def s_break(self, depth: int) -> None:
        self.guarded("break", depth)

    def s_continue(self, depth: int) -> None:
        self.guarded("continue", depth)

    def guarded(self, line: str, depth: int) -> None:
        if self.chance(20):
            self.sink(self.scopes)
            self.emit(line)
        else:
            self.nested(f"if {self.condition()}:", lambda: self.emit(line))

    def s_return(self, depth: int) -> None:
        self.guarded(self.return_statement(), depth)

    def return_statement(self) -> str:
        values = [self.typed(want, 1, any_tag=self.in_f).src for want in self.returns]
        return f"return {', '.join(values)}"

    def s_assert(self, depth: int) -> None:
        """An assert, most often on a graph value (``n`` is one) and so decided when the
        graph runs, sometimes decided while tracing."""
        label = self.fresh_name("a")
        message = self.pick(("", f', "{label}"', f', f"{label} {{{self.atom().src}}}"'))
        guard = "" if self.chance(20) else "n >= -9 and "  # decided while tracing, or not
        self.emit(f"assert {guard}{self.condition()}{message}")

    def s_raise(self, depth: int) -> None:
        label = self.fresh_name("r")
        error = self.pick(("ValueError", "RuntimeError"))
        self.nested(f"if {self.condition()}:", lambda: self.emit(f'raise {error}("{label}")'))

    # -- Python constructs under graph control flow -------------------------------------
    # Containers read and mutated in branches and loops, closures reading variables that
    # loops change, try/finally, del, globals and aliases of arrays. Graph mode either
    # gives eager's result or refuses them clearly; the report counts each refusal.

    def number(self) -> Val:
        """A Python float expression."""
        return self.typed(Val("", 1.5), 1)

    def s_dict(self, depth: int) -> None:
        """A dict whose keys and values a graph branch decides, then read."""
        name = self.fresh_name("d")
        self.emit(f'{name} = {{"a": {self.number().src}}}')
        test = self.pick((self.condition(), f'{name}["a"] > {self.pick(FLOAT_LITERALS[:6])}'))

        def store() -> None:
            key = self.pick(('"b"', '"a"'))
            self.emit(f"{name}[{key}] = {self.number().src}")

        self.nested(f"if {test}:", store)
        if self.chance(50):
            self.nested("else:", store)
        self.emit(f'print("{self.fresh_name("k")}", {name}, {name}.get("b", -1.0), len({name}))')

    def s_pylist(self, depth: int) -> None:
        """A Python list changed by its methods in a loop or a branch, then read."""
        name = self.fresh_name("l")
        items = ", ".join(self.number().src for _ in range(self.draw(st.integers(0, 3))))
        self.emit(f"{name} = [{items}]")
        total = self.fresh_name("c")
        self.emit(f"{total} = 0.0")

        def change() -> None:
            how = self.pick(("pop", "guarded pop", "append", "insert", "extend", "item"))
            if how == "pop":
                self.emit(f"{total} = {total} + {name}.pop()")
            elif how == "guarded pop":
                self.nested(
                    f"if len({name}) > 0:", lambda: self.emit(f"{total} = {total} + {name}.pop(0)")
                )
            elif how == "append":
                self.emit(f"{name}.append({self.number().src})")
            elif how == "insert":
                self.emit(f"{name}.insert(0, {self.number().src})")
            elif how == "extend":
                self.emit(f"{name}.extend([{self.number().src}, {total}])")
            else:
                self.nested(
                    f"if len({name}) > 1:", lambda: self.emit(f"{name}[1] = {self.number().src}")
                )

        if self.chance(70):
            self.loop(depth, change)
        else:
            self.nested(f"if {self.condition()}:", change)
        self.emit(f'print("{self.fresh_name("k")}", {name}, len({name}), {total})')
        self.bind(Var(total, 1.5))

    def s_tuple(self, depth: int) -> None:
        """A tuple rebuilt in a graph branch, then unpacked."""
        name, first, second = (self.fresh_name(p) for p in ("t", "v", "v"))
        number, count = Val("", 1.5), Val("", 3)
        self.emit(f"{name} = ({self.typed(number, 1).src}, {self.typed(count, 1).src})")
        self.nested(
            f"if {self.condition()}:",
            lambda: self.emit(f"{name} = ({self.typed(number, 1).src}, {self.pick(INT_LITERALS)})"),
        )
        self.emit(f"{first}, {second} = {name}")
        self.bind(Var(first, 1.5))
        self.bind(Var(second, 3, readonly=True))

    def s_closure(self, depth: int) -> None:
        """A lambda or nested def reading a variable that a loop then changes."""
        value, getter = self.fresh_name("c"), self.fresh_name("g")
        self.emit(f"{value} = {self.number().src}")
        body = f"{value} * 2.0 + {self.pick(FLOAT_LITERALS[:6])}"
        if self.chance(50):
            self.emit(f"{getter} = lambda: {body}")
        else:
            self.emit(f"def {getter}():")
            self.emit(f"    return {body}")
        label = self.fresh_name("k")

        def step() -> None:
            self.emit(f"{value} = {value} + {self.pick(('1.0', '0.5', '-2.0'))}")
            self.emit(f'print("{label}", {getter}())')

        self.loop(depth, step)
        self.emit(f'print("{label}", {getter}(), {value})')

    def s_try(self, depth: int) -> None:
        """try/finally (or try/except) around statements that may return or raise."""
        self.nested("try:", lambda: self.block(2, depth + 1))
        if self.chance(25):
            self.nested(
                "except ValueError:",
                lambda: self.emit(f'print("{self.fresh_name("k")}", "caught")'),
            )
        self.nested("finally:", lambda: self.block(2, depth + 1))

    def s_del(self, depth: int) -> None:
        """``del`` of a variable of this block, possibly under a graph branch."""
        names = [
            name
            for name, var in self.scopes[-1].items()
            if not var.readonly and name not in ("x", "y", "n", "s")
        ]
        if not names:
            self.s_assign(depth)
            return
        name = self.pick(names)
        if self.chance(50):
            self.nested(f"if {self.condition()}:", lambda: self.emit(f"del {name}"))
        else:
            self.emit(f"del {name}")
        for scope in self.scopes:
            scope.pop(name, None)
        self.unread.discard(name)

    def s_global(self, depth: int) -> None:
        """A module global set, then reset in a graph branch, then read."""
        name = self.fresh_name("G")
        self.emit(f"global {name}")
        self.emit(f"{name} = {self.number().src}")
        self.nested(f"if {self.condition()}:", lambda: self.emit(f"{name} = {self.number().src}"))
        self.emit(f'print("{self.fresh_name("k")}", {name})')

    def s_alias(self, depth: int) -> None:
        """A second name for a buffer (or an argument), changed in place through it."""
        owned = [v for v in self.visible() if v.owned]
        if not owned:
            self.s_buffer(depth)
            return
        target = self.pick(owned)
        alias = replace(target, src=self.fresh_name("a"))
        self.emit(f"{alias.src} = {target.src}")
        self.bind(alias)
        self.s_update_in_place(alias)
        self.emit(f'print("{self.fresh_name("k")}", {target.src})')

    def s_held(self, depth: int) -> None:
        """An array (a buffer or an argument) held in a list or dict beside a number,
        written through its item in a graph loop or branch that also changes the number;
        then read through the array's own name and through the container."""
        if not any(v.owned for v in self.visible()):
            self.s_buffer(depth)  # one to hold, where there is an array to model it on
        owned = [v for v in self.visible() if v.owned]
        if not owned:
            return
        target = self.pick(owned)
        name = self.fresh_name("c")
        number = self.number().src
        if self.chance(50):
            self.emit(f'{name} = {{"n": {number}, "v": {target.src}}}')
            count, item = f'{name}["n"]', f'{name}["v"]'
        else:
            self.emit(f"{name} = [{number}, {target.src}]")
            count, item = f"{name}[0]", f"{name}[1]"

        def change() -> None:
            self.emit(f"{count} += {self.number().src}")
            self.s_update_in_place(replace(target, src=item))

        if self.chance(70):
            self.loop(depth, change)
        else:
            self.nested(f"if {self.condition()}:", change)
        self.emit(f'print("{self.fresh_name("k")}", {target.src}, {item}, {count})')

    def s_update_in_place(self, target: Var) -> None:
        """``target op= value`` or ``target[i] = value`` (the array keeps its dtype)."""
        operand = self.expr(1)
        op = self.pick(("+=", "-=", "*="))
        result = None
        if not _is_array(operand.sample) or operand.tag == target.tag:
            result = combine(f"({{0}} {op[0]} {{1}})", "ew", [target, operand], self.names)
        if result is not None and self.fits(result, target, False):
            self.emit(f"{target.src} {op} {operand.src}")
        else:
            value = self.typed(Val("", target.sample[1]), 1)
            self.emit(f"{target.src}[-1] = {value.src}")


# Statements of Python constructs (``Writer.s_<name>``), drawn with the others; a program
# using them (or writing into its arguments) starts with a comment naming them.
PYTHON_CONSTRUCTS = (
    "dict",
    "pylist",
    "tuple",
    "closure",
    "try",
    "del",
    "global",
    "alias",
    "held",
)
PYTHON_MARK = "# Python constructs: "


# ---------------------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------------------


def literal_source(value: Any) -> str:
    """Python source that evaluates to ``value`` (arrays, NumPy and Python scalars)."""
    if isinstance(value, np.ndarray):
        items = ", ".join(_number_source(v.item()) for v in value)
        return f"np.array([{items}], dtype=np.{value.dtype.name})"
    if isinstance(value, np.generic):
        return f"np.{value.dtype.name}({_number_source(value.item())})"
    return _number_source(value)


def _number_source(value: Any) -> str:
    if isinstance(value, complex):
        return f"complex({_number_source(value.real)}, {_number_source(value.imag)})"
    if isinstance(value, float) and not np.isfinite(value):
        return "np.nan" if np.isnan(value) else ("np.inf" if value > 0 else "-np.inf")
    return repr(value)


@dataclass(frozen=True)
class Program:
    """A generated module (defining ``f``) and the source of the arguments to call it with."""

    source: str
    args_source: str

    def args(self) -> tuple:
        """The arguments, freshly made."""
        return eval(self.args_source, {"np": np})

    @property
    def python_constructs(self) -> bool:
        """Whether the program uses the Python constructs graph mode may refuse."""
        return self.source.startswith(PYTHON_MARK)

    @property
    def on_cuda(self) -> bool:
        """Whether this program is in the subset also run on the CUDA backend (1 in 10)."""
        return zlib.crc32(self.source.encode()) % 10 == 0

    def regression_text(self, docstring: str, backends: Sequence[str]) -> str:
        """The program as a regression file: ``ARGS`` and ``BACKENDS`` after the code."""
        return (
            f'"""{docstring}"""\n\n{self.source}\n\nARGS = {self.args_source}\n'
            f"BACKENDS = {tuple(backends)!r}\n"
        )


def _helper_samples(dtype: str) -> list[Val]:
    return [
        Val("", array_sample(dtype), "L"),
        Val("", scalar_sample(dtype)),
        Val("", 1.5),
        Val("", 3),
    ]


@st.composite
def _function(
    draw: Callable,
    name: str,
    params: list[Var],
    returns: list[Val],
    helpers: list[Helper],
    names: itertools.count,
    size: int,
    constructs: set[str],
    python: bool,
) -> str:
    writer = Writer(
        draw, names, helpers, returns, name == "f", constructs=constructs, python=python
    )
    for param in params:
        writer.bind(param)
    writer.block(size, 0)
    result = writer.return_statement()
    writer.unread -= set(re.findall(r"\b[a-z]\w*\b", result))
    writer.sink(writer.scopes)
    writer.emit(result)
    header = f"def {name}({', '.join(p.src for p in params)}):"
    return "\n".join([header, *writer.lines])


def _input_array(dtype: str, length: int) -> st.SearchStrategy:
    kind = np.dtype(dtype).kind
    if kind == "f":
        elements = st.sampled_from(FLOAT_VALUES)
    elif kind == "c":
        part = st.sampled_from(FLOAT_VALUES)
        elements = st.builds(complex, part, part)
    else:
        info = np.iinfo(dtype)
        elements = st.sampled_from([v for v in INT_VALUES if info.min <= v <= info.max])
    return st.lists(elements, min_size=length, max_size=length).map(
        lambda items: _to_array(items, dtype)
    )


def _to_array(items: list, dtype: str) -> np.ndarray:
    with np.errstate(over="ignore"):  # 1e300 is inf in float32
        return np.array(items, dtype=dtype)


def _scalar_input(kind: str) -> st.SearchStrategy:
    if kind == "float":
        return st.sampled_from(FLOAT_VALUES).map(float)
    if kind == "int":
        return st.sampled_from((0, 1, -1, 2, 7, -100, 2**31, -(2**40)))
    dtype = kind.removeprefix("np.")
    return _input_array(dtype, 1).map(lambda a: a[0])


@st.composite
def programs(draw: Callable, max_statements: int = 6) -> Program:
    """A random program: helpers and ``f(x, y, n, s)``, with its arguments."""
    dx = draw(st.sampled_from(DTYPES))
    dy = draw(st.sampled_from(DTYPES))
    scalar_kinds = ["float", "int", f"np.{dx}", "np.float32", "np.int64", "np.int32"]
    s_kind = draw(st.sampled_from(scalar_kinds))
    s_sample = {"float": 1.5, "int": 3}.get(s_kind) or scalar_sample(s_kind[3:])
    names = itertools.count()

    helpers: list[Helper] = []
    constructs: set[str] = set()
    python = draw(st.integers(0, 99)) >= 70  # Python constructs in three programs of ten
    chunks = ["import numpy as np"]
    for h in range(draw(st.integers(0, 2))):
        options = _helper_samples(dx)
        samples = [options[draw(st.integers(0, 3))] for _ in range(draw(st.integers(1, 2)))]
        params = [Var(f"a{h}_{k}", v.sample, v.tag) for k, v in enumerate(samples)]
        choices = [*samples, Val("", 1.5)]
        result = choices[draw(st.integers(0, len(choices) - 1))]
        chunks.append(
            draw(_function(f"h{h}", params, [result], list(helpers), names, 3, constructs, python))
        )
        helpers.append(Helper(f"h{h}", [Val("", p.sample, p.tag) for p in params], result))

    # f may write into its argument arrays (the caller's arrays change, as eagerly).
    writes = python and draw(st.integers(0, 99)) >= 50
    params = [
        Var("x", array_sample(dx), "L", owned=writes),
        Var("y", array_sample(dy), "L", owned=writes),
        Var("n", 3, readonly=True),
        Var("s", s_sample),
    ]
    return_options = [
        params[0],
        params[1],
        Val("", 1.5),
        Val("", 3),
        Val("", scalar_sample(dx)),
        Val("", True),
    ]
    returns = [
        Val("", o.sample, o.tag)
        for o in (return_options[draw(st.integers(0, 5))] for _ in range(draw(st.integers(1, 3))))
    ]
    chunks.append(
        draw(_function("f", params, returns, helpers, names, max_statements, constructs, python))
    )
    if writes:
        constructs.add("argument writes")
    if constructs:
        chunks[0] = f"{PYTHON_MARK}{', '.join(sorted(constructs))}\n{chunks[0]}"
    source = "\n\n\n".join(chunks) + "\n"
    compile(source, "<program>", "exec")

    length = draw(st.integers(0, 5))
    x = draw(_input_array(dx, length))
    y = draw(_input_array(dy, length))
    n = draw(st.integers(-1, 6))
    s = draw(_scalar_input(s_kind))
    args = ", ".join(literal_source(v) for v in (x, y, n, s))
    return Program(source, f"({args})")


# ---------------------------------------------------------------------------------------
# Running a program
# ---------------------------------------------------------------------------------------


class Disagreement(AssertionError):
    """Graph mode on ``backend`` did not behave as eager Python did."""

    def __init__(self, backend: str, message: str) -> None:
        super().__init__(f"[{backend}] {message}")
        self.backend = backend


def load(source: str, directory: Path) -> Any:
    """Import ``source`` from a new file in ``directory`` (graph mode reads the file)."""
    name = f"fuzzprog_{zlib.crc32(source.encode()):08x}_{next(_modules)}"
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name)
    return module


_modules = itertools.count()


def observe(fn: Callable, args: tuple) -> tuple[harness.Outcome, tuple]:
    """Call ``fn`` on a deep copy of ``args``: what it returned, raised and printed, and the
    arguments as the call left them."""
    args = copy.deepcopy(args)
    buffer = io.StringIO()
    value, error = None, None
    with contextlib.redirect_stdout(buffer):
        try:
            value = fn(*args)
        except Exception as exc:
            error = exc
    return harness.Outcome(value, error, buffer.getvalue()), args


def check_backends(fn: Callable, args: tuple, backends: Sequence[str]) -> dict[str, str]:
    """Check ``fn(*args)`` eagerly against graph mode on each backend, twice (the second
    call is served from the trace cache): results, printed output, exception types and the
    argument arrays after the call.

    Returns, per backend, "ran" or "refused: <exception>" where graph mode refused the
    function before running it (the CUDA backend's DeviceUnsupportedError, or a
    GraphModeError eager does not raise). A disagreement raises ``Disagreement``.
    """
    eager, eager_args = observe(fn, args)
    ran = {}
    for backend in backends:
        graph_fn = ng.function(fn, backend=backend)
        ran[backend] = "ran"
        for call in ("first graph call", "second graph call"):
            graph, graph_args = observe(graph_fn, args)
            error = graph.error
            if isinstance(error, DeviceUnsupportedError) and harness.cuda_refusal(error) is None:
                raise Disagreement(
                    backend,
                    f"the CUDA backend refused what it is not known to "
                    f"refuse (tests/backend/cuda/refusals.py): {error}",
                )
            if isinstance(error, DeviceUnsupportedError) or (
                isinstance(error, GraphModeError) and not isinstance(eager.error, type(error))
            ):
                ran[backend] = f"refused: {type(error).__name__}"
                break
            label = f"{fn.__name__}, {call}"
            try:
                harness.compare_outcomes(eager, graph, label, backend)
                for k, (want, got) in enumerate(zip(eager_args, graph_args)):
                    harness.assert_same(
                        want, got, path=f"[{label}] argument {k + 1} after the call"
                    )
            except AssertionError as exc:
                raise Disagreement(backend, str(exc)) from exc
    return ran


def run_program(program: Program, backends: Sequence[str], directory: Path) -> dict[str, str]:
    """Load the program from a file in ``directory`` and check its ``f`` on the backends;
    a refusal (other than the CUDA backend's) is a disagreement unless the program uses
    the Python constructs graph mode may refuse."""
    ran = check_backends(load(program.source, directory).f, program.args(), backends)
    for backend, outcome in ran.items():
        if (
            outcome not in ("ran", "refused: DeviceUnsupportedError")
            and not program.python_constructs
        ):
            raise Disagreement(backend, f"graph mode {outcome} (supported constructs only)")
    return ran


def fixed_programs(count: int) -> Callable:
    """Hypothesis settings for a test over ``count`` random programs, the same ones
    on every run (a test suite's, not a search's)."""
    return settings(
        max_examples=count,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.function_scoped_fixture,
        ],
    )
