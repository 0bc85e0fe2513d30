"""Errors of graph functions defined in a file, as a user sees them.

Run-time errors (raised inside the graph) must be eager's exception: same type, same
message, the innermost traceback entry at the user's failing line with the user
functions that called it above, no internal frames, and notes that name the failing
node, its operands and the loop iteration.  Trace-time errors (what graph mode cannot
express, or Python errors while tracing) must name the variable or call, the line and
the fix, with the same traceback discipline.  Everything runs on both backends.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cases as c
import numpy as np
import pytest

import nbgraph as ng
from nbgraph.source.cache import cache_dir

BACKENDS = ["interpret", "cpu"]
CASES_FILE = str(Path(c.__file__).resolve())
HIDDEN = "NBGRAPH_TRACEBACK=full"
INTERNAL_NAMES = re.compile(r"\b(Traced|TracedList|Text|ConsList)\b")  # nbgraph's classes
X = np.arange(3.0)  # [0, 1, 2]


# --- helpers ------------------------------------------------------------------------------


@functools.cache
def graph_fn(fn: Callable, backend: str) -> ng.GraphFunction:
    """One graph function per (function, backend), so each compiles once per session."""
    return ng.function(fn, backend=backend)


def error_of(call: Callable, *args) -> BaseException:
    with pytest.raises(Exception) as info:
        call(*args)
    return info.value


def internal_roots() -> list[str]:
    import llvmlite
    import numba

    roots = [
        Path(ng.__file__).parent,
        Path(numba.__file__).parent,
        Path(llvmlite.__file__).parent,
        cache_dir(),
    ]
    return [str(r.resolve()) for r in roots]


def is_internal(filename: str) -> bool:
    path = str(Path(filename).resolve())
    return any(path == r or path.startswith(r + os.sep) for r in internal_roots())


def entries(err: BaseException) -> list[traceback.FrameSummary]:
    return traceback.extract_tb(err.__traceback__)


def notes_of(err: BaseException) -> list[str]:
    return list(getattr(err, "__notes__", []))


def check_user_frames(
    err: BaseException, fn: Callable, frames: tuple[tuple[Callable, str], ...]
) -> None:
    """The traceback is: this test, then the graph function's entry (its definition's
    first line), then exactly the user lines ``frames`` (outermost first)."""
    tb = entries(err)
    assert tb[0].filename == __file__, tb
    user = [(e.filename, e.lineno) for e in tb[1:]]
    want = [(CASES_FILE, c.first_line(fn))] + [(CASES_FILE, c.line_of(f, t)) for f, t in frames]
    assert user == want, "\n" + "".join(traceback.format_list(tb))


def check_no_internal_frames(err: BaseException) -> None:
    internal = [e for e in entries(err) if is_internal(e.filename)]
    assert not internal, "".join(traceback.format_list(internal))
    text = "".join(traceback.format_exception(err))
    assert not any(root in text for root in internal_roots()), text


def caret_columns(formatted: str, line: str) -> tuple[int, int] | None:
    """Columns (in ``line``) that the carets printed under the last display of ``line``
    cover, or None when no carets follow it."""
    shown = formatted.splitlines()
    hits = [i for i, s in enumerate(shown) if s.strip() == line.strip()]
    if not hits or hits[-1] + 1 >= len(shown):
        return None
    i = hits[-1]
    marks = shown[i + 1]
    if not marks.strip() or set(marks.strip()) - set("~^"):
        return None
    shift = (len(line) - len(line.lstrip())) - (len(shown[i]) - len(shown[i].lstrip()))
    start = len(marks) - len(marks.lstrip()) + shift
    return start, len(marks.rstrip()) + shift


def params(names, xfails: dict[tuple[str, str], str], backends=BACKENDS):
    """(backend, name) parameters; ``xfails`` maps (backend or '*', name) to the reason
    the test fails because of an nbgraph bug (a failed assertion: a crash still fails)."""
    out = []
    for backend in backends:
        for name in names:
            reason = xfails.get((backend, name)) or xfails.get(("*", name))
            marks = (
                [pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)]
                if reason
                else []
            )
            out.append(pytest.param(backend, name, marks=marks, id=f"{backend}-{name}"))
    return out


# --- run-time cases -----------------------------------------------------------------------


@dataclass(frozen=True)
class RunCase:
    fn: Callable
    args: Callable[[], tuple]  # fresh arguments on which the function fails
    frames: tuple[tuple[Callable, str], ...]  # user lines below the entry, outermost first
    op: str  # how the note shows the failing node's operation
    shows: tuple[str, ...] = ()  # what else the notes show: operand summaries, names
    loops: tuple[tuple[Callable, str, int], ...] = ()  # (fn, loop line, iteration), outer first


def ones(*shape):
    return np.ones(shape)


RUN = {
    "index_in_helper": RunCase(
        c.index_in_helper,
        lambda: (X.copy(), 5),
        ((c.index_in_helper, "s = sum_first(x, n)"), (c.sum_first, "t = t + x[i]")),
        "getitem(",
        ("float64[3]", "int 3"),
        ((c.sum_first, "for i in range(n)", 4),),
    ),
    "index_two_levels_down": RunCase(
        c.index_two_levels_down,
        lambda: (X.copy(), 5),
        (
            (c.index_two_levels_down, "z = middle(x, i)"),
            (c.middle, "return pick(y, i) + 1.0"),
            (c.pick, "return x[i] * 10.0"),
        ),
        "getitem(",
        ("float64[3]", "int 5"),
    ),
    "helper_in_loop": RunCase(
        c.rows_total,
        lambda: (ones(2, 3),),
        ((c.rows_total, "t = t + last_of(r)"), (c.last_of, "return r[3]")),
        "getitem(",
        ("float64[3]",),
        ((c.rows_total, "for r in x", 1),),
    ),
    "nested_loops": RunCase(
        c.nested_loops,
        lambda: (ones(2, 3), 3, 3),
        ((c.nested_loops, "t = t + x[i, j]"),),
        "getitem(",
        ("float64[2, 3]", "int 2", "int 0"),
        ((c.nested_loops, "for i in range(n)", 3), (c.nested_loops, "for j in range(m)", 1)),
    ),
    "while_with_break": RunCase(
        c.while_with_break,
        lambda: (X.copy(), 5),
        ((c.while_with_break, "t = t + x[i]"),),
        "getitem(",
        ("float64[3]", "int 3"),
        ((c.while_with_break, "while i < limit", 4),),
    ),
    "list_index": RunCase(
        c.list_item,
        lambda: (X.copy(), 3),
        ((c.list_item, "return items[5]"),),
        "list_getitem(",
        ("list of 3",),
    ),
    "nested_def": RunCase(
        c.nested_def_index,
        lambda: (X.copy(), 5),
        ((c.nested_def_index, "return shifted(x)"), (c.nested_def_index, "return v[i] + 1.0")),
        "getitem(",
        ("float64[3]", "int 5"),
    ),
    "int_floordiv": RunCase(
        c.int_floordiv, lambda: (7, 0), ((c.int_floordiv, "q = a // b"),), "//(", ("int 7", "int 0")
    ),
    "int_mod": RunCase(
        c.int_mod, lambda: (7, 0), ((c.int_mod, "r = a % b"),), "%(", ("int 7", "int 0")
    ),
    "float_div": RunCase(
        c.float_div,
        lambda: (1.0, 0.0),
        ((c.float_div, "ratio = a / b"),),
        "/(",
        ("float 1.0", "float 0.0"),
    ),
    "float_pow": RunCase(
        c.float_pow,
        lambda: (0.0, -1.0),
        ((c.float_pow, "p = a**b"),),
        "**(",
        ("float 0.0", "float -1.0"),
    ),
    "math_domain": RunCase(
        c.root, lambda: (-1.0,), ((c.root, "r = math.sqrt(a)"),), "sqrt(", ("float -1.0",)
    ),
    "assert_plain": RunCase(
        c.assert_plain,
        lambda: (-X,),
        ((c.assert_plain, "assert x.sum() > 0"),),
        "assert(",
        ("bool False",),
    ),
    "assert_message": RunCase(
        c.assert_message,
        lambda: (-X,),
        ((c.assert_message, "assert x.sum() > 0"),),
        "assert(",
        ("bool False",),
    ),
    "assert_fstring": RunCase(
        c.assert_fstring,
        lambda: (-X - 1.0,),
        ((c.assert_fstring, "assert x.sum() > 0"),),
        "assert(",
        ("bool False", "float64 -6.0"),
    ),
    "assert_in_loop": RunCase(
        c.assert_each,
        lambda: (X.copy(),),
        ((c.assert_each, "assert v < 2.0"),),
        "assert(",
        ("bool False", "float64 2.0"),
        ((c.assert_each, "for v in x", 3),),
    ),
    "raise_value_error": RunCase(
        c.raise_value_error,
        lambda: (-X - 1.0,),
        ((c.raise_value_error, "raise ValueError"),),
        "raise(",
        ("ValueError", "float64 -12.0"),
    ),
    "raise_custom": RunCase(
        c.raise_custom,
        lambda: (X * 10.0,),
        ((c.raise_custom, "raise CaseError"),),
        "raise(",
        ("CaseError",),
    ),
    "raise_custom_init": RunCase(
        c.raise_limit,
        lambda: (X * 10.0,),
        ((c.raise_limit, "raise Limit(10)"),),
        "raise(",
        ("Limit",),
    ),
    "raise_custom_init_data": RunCase(
        c.raise_limit_of_data,
        lambda: (X * 10.0,),
        ((c.raise_limit_of_data, "raise Limit(x.max())"),),
        "raise(",
        ("Limit", "float64 20.0"),
    ),
    "broadcast": RunCase(
        c.broadcast,
        lambda: (ones(3), ones(4)),
        ((c.broadcast, "return s + y"),),
        "+(",
        ("float64[3]", "float64[4]"),
    ),
    "matmul": RunCase(
        c.matmul,
        lambda: (ones(2, 3), ones(2, 3)),
        ((c.matmul, "c = a @ b"),),
        "@(",
        ("float64[2, 3]", "float64[2, 3]"),
    ),
    "stack": RunCase(
        c.stack_rows,
        lambda: (ones(3), ones(4)),
        ((c.stack_rows, "s = np.stack([x, y])"),),
        "np.stack(",
        ("float64[3]", "float64[4]"),
    ),
    "reshape": RunCase(
        c.reshape_to_pairs,
        lambda: (ones(5),),
        ((c.reshape_to_pairs, "r = x.reshape(2, 3)"),),
        "np.reshape(",
        ("float64[5]",),
    ),
}

RUN_XFAILS: dict[tuple[str, str], str] = {}


def run_errors(backend: str, name: str) -> tuple[BaseException, BaseException]:
    case = RUN[name]
    eager = error_of(case.fn, *case.args())
    graph = error_of(graph_fn(case.fn, backend), *case.args())
    return eager, graph


@pytest.mark.parametrize("backend, name", params(RUN, {**RUN_XFAILS}))
def test_run_time_error_is_eagers(backend, name):
    eager, graph = run_errors(backend, name)
    assert type(graph) is type(eager)
    assert str(graph) == str(eager)
    assert repr(graph.args) == repr(eager.args)


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_exception_keeps_its_attributes(backend):
    f = graph_fn(c.raise_limit, backend)
    with pytest.raises(c.Limit) as info:
        f(X * 10.0)
    assert info.value.limit == 10


@pytest.mark.parametrize("backend, name", params(RUN, {**RUN_XFAILS}))
def test_run_time_traceback_is_the_users_lines(backend, name):
    case = RUN[name]
    _, graph = run_errors(backend, name)
    check_user_frames(graph, case.fn, case.frames)


@pytest.mark.parametrize("backend, name", params(RUN, RUN_XFAILS))
def test_run_time_traceback_has_no_internal_frames(backend, name):
    _, graph = run_errors(backend, name)
    check_no_internal_frames(graph)


@pytest.mark.parametrize("backend, name", params(RUN, {**RUN_XFAILS}))
def test_run_time_notes_name_node_operands_and_loops(backend, name):
    case = RUN[name]
    _, graph = run_errors(backend, name)
    notes = notes_of(graph)
    text = "\n".join(notes)
    assert notes[0].startswith(f"in graph '{case.fn.__name__}': "), text
    assert case.op in notes[0], text
    for shown in case.shows:
        assert shown in text, text
    assert not INTERNAL_NAMES.search(text), text
    loop_notes = [n for n in notes if n.startswith("in iteration ")]
    want = [f"in iteration {k} of the loop at line {c.line_of(f, t)}" for f, t, k in case.loops]
    assert len(loop_notes) == len(want), text
    for note, prefix in zip(loop_notes, want):
        assert note.startswith(prefix), text
    assert HIDDEN in notes[-1], text


@pytest.mark.parametrize("name", [n for n in RUN if ("cpu", n) not in RUN_XFAILS])
def test_cpu_run_time_error_keeps_the_compiled_exception(name):
    _, graph = run_errors("cpu", name)
    original = graph.__context__
    assert isinstance(original, Exception) and original is not graph
    assert graph.__suppress_context__  # reachable, but not printed


@pytest.mark.parametrize("backend", BACKENDS)
def test_unrolled_loop_note_names_the_iteration(backend):
    f = ng.function(c.index_in_helper, backend=backend, static_argnames=("n",))
    with pytest.raises(IndexError) as info:
        f(X, n=5)
    loop = c.line_of(c.sum_first, "for i in range(n)")
    assert f"in iteration 4 of the loop at line {loop}" in "\n".join(notes_of(info.value))


def test_loop_note_gives_the_loop_state():
    _, graph = run_errors("interpret", "while_with_break")
    assert "(when it began: i = 3, t = 3.0)" in "\n".join(notes_of(graph))


# --- trace-time cases ---------------------------------------------------------------------


@dataclass(frozen=True)
class TraceCase:
    fn: Callable
    args: Callable[[], tuple]
    frames: tuple[tuple[Callable, str], ...]  # user lines below the entry, outermost first
    kind: type  # the exception type graph mode raises
    base: type  # the built-in type it also is
    mentions: tuple[str, ...] = ()  # what the message must name (variable, call, fix)
    lines: tuple[tuple[Callable, str], ...] = ()  # lines the message must name
    eager_fails: bool = False  # eager raises (base) on the same arguments
    same_message: bool = False  # ... with the same message


TRACE = {
    "one_branch_variable": TraceCase(
        c.one_branch_variable,
        lambda: (-X - 1.0,),
        ((c.one_branch_variable, "z = y + 1.0"),),
        ng.UndefinedValueError,
        UnboundLocalError,
        ("'y'", "both branches"),
        ((c.one_branch_variable, "if x.sum() > 0"), (c.one_branch_variable, "z = y + 1.0")),
        eager_fails=True,
    ),
    "one_branch_in_helper": TraceCase(
        c.one_branch_in_helper,
        lambda: (-X - 1.0,),
        (
            (c.one_branch_in_helper, "w = one_branch_variable(x)"),
            (c.one_branch_variable, "z = y + 1.0"),
        ),
        ng.UndefinedValueError,
        UnboundLocalError,
        ("'y'", "both branches"),
        ((c.one_branch_variable, "z = y + 1.0"),),
        eager_fails=True,
    ),
    "dtype_changes_in_loop": TraceCase(
        c.dtype_changes_in_loop,
        lambda: (X.copy(), 3),
        ((c.dtype_changes_in_loop, "for i in range(n)"),),
        ng.LoopTypeError,
        TypeError,
        ("'t'", "t = 0.0"),
        ((c.dtype_changes_in_loop, "for i in range(n)"),),
    ),
    "generator_call": TraceCase(
        c.sum_of_generator,
        lambda: (X.copy(),),
        ((c.sum_of_generator, "return sum(squares"),),
        ng.ConversionError,
        NotImplementedError,
        ("squares", "generator", "list"),
        ((c.sum_of_generator, "return sum(squares"),),
    ),
    "generator_function": TraceCase(
        c.squares,
        lambda: (X.copy(),),
        ((c.squares, "yield v * v"),),
        ng.ConversionError,
        NotImplementedError,
        ("squares", "generator", "list"),
        ((c.squares, "yield v * v"),),
    ),
    "recursion": TraceCase(
        c.countdown,
        lambda: (X.copy(),),
        ((c.countdown, "return countdown(x - 1.0)"),),
        ng.ConversionError,
        NotImplementedError,
        ("countdown", "recursi", "loop"),
        ((c.countdown, "return countdown(x - 1.0)"),),
    ),
    "random_call": TraceCase(
        c.random_noise,
        lambda: (X.copy(),),
        ((c.random_noise, "np.random.random"),),
        ng.StagingError,
        TypeError,
        ("random", "pass them in"),
        ((c.random_noise, "np.random.random"),),
    ),
    "open_call": TraceCase(
        c.open_numbered,
        lambda: (X.copy(), 3),
        ((c.open_numbered, "with open("),),
        ng.StagingError,
        TypeError,
        ("open",),
        ((c.open_numbered, "with open("),),
    ),
    "library_call": TraceCase(
        c.json_total,
        lambda: (X.copy(),),
        ((c.json_total, "json.dumps"),),
        ng.StagingError,
        TypeError,
        ("dumps",),
        ((c.json_total, "json.dumps"),),
    ),
    "iterating_builtin": TraceCase(
        c.sorted_values,
        lambda: (X.copy(),),
        ((c.sorted_values, "s = sorted(x)"),),
        ng.StagingError,
        TypeError,
        ("sorted",),
        ((c.sorted_values, "s = sorted(x)"),),
    ),
    "attribute_typo": TraceCase(
        c.attribute_typo,
        lambda: (X.copy(),),
        ((c.attribute_typo, "return y.summ()"),),
        AttributeError,
        AttributeError,
        ("'summ'",),
        eager_fails=True,
    ),
    "attribute_typo_in_helper": TraceCase(
        c.typo_in_helper,
        lambda: (X.copy(),),
        ((c.typo_in_helper, "z = attribute_typo(x)"), (c.attribute_typo, "return y.summ()")),
        AttributeError,
        AttributeError,
        ("'summ'",),
        eager_fails=True,
    ),
    "wrong_helper_call": TraceCase(
        c.wrong_helper_call,
        lambda: (X.copy(),),
        ((c.wrong_helper_call, "return sum_first(x)"),),
        TypeError,
        TypeError,
        ("sum_first", "'n'"),
        eager_fails=True,
        same_message=True,
    ),
    "numpy_axis_error": TraceCase(
        c.bad_axis,
        lambda: (X.copy(),),
        ((c.bad_axis, "return x.sum(axis=3)"),),
        np.exceptions.AxisError,
        ValueError,
        ("axis 3",),
        eager_fails=True,
        same_message=True,
    ),
    "numpy_ufunc_type_error": TraceCase(
        c.add_text,
        lambda: (X.copy(),),
        ((c.add_text, 'return x + "a"'),),
        TypeError,
        TypeError,
        ("add",),
        eager_fails=True,
        same_message=True,
    ),
    "calling_an_array": TraceCase(
        c.call_array,
        lambda: (X.copy(),),
        ((c.call_array, "return y(3)"),),
        TypeError,
        TypeError,
        ("not callable",),
        eager_fails=True,
    ),
}


def trace_error(backend: str, name: str) -> BaseException:
    case = TRACE[name]
    return error_of(graph_fn(case.fn, backend), *case.args())


@pytest.mark.parametrize("backend, name", params(TRACE, {}))
def test_trace_time_error_type(backend, name):
    case = TRACE[name]
    err = trace_error(backend, name)
    assert isinstance(err, case.kind), repr(err)
    assert isinstance(err, case.base), repr(err)
    if case.eager_fails:
        eager = error_of(case.fn, *case.args())
        assert isinstance(eager, case.base)
        assert isinstance(err, type(eager))
        if case.same_message:
            assert str(err) == str(eager)


@pytest.mark.parametrize("backend, name", params(TRACE, {}))
def test_trace_time_message_names_what_where_and_fix(backend, name):
    case = TRACE[name]
    message = str(trace_error(backend, name))
    for text in case.mentions:
        assert text in message, message
    for fn, text in case.lines:
        assert f"line {c.line_of(fn, text)}" in message, message
    assert not INTERNAL_NAMES.search(message), message


@pytest.mark.parametrize("backend, name", params(TRACE, {}))
def test_trace_time_traceback_is_the_users_lines(backend, name):
    case = TRACE[name]
    check_user_frames(trace_error(backend, name), case.fn, case.frames)


@pytest.mark.parametrize("backend, name", params(TRACE, {}))
def test_trace_time_traceback_has_no_internal_frames(backend, name):
    err = trace_error(backend, name)
    check_no_internal_frames(err)
    assert HIDDEN in notes_of(err)[-1]


@pytest.mark.parametrize(
    "backend, name", params([n for n, t in TRACE.items() if t.kind is ng.ConversionError], {})
)
def test_conversion_error_shows_the_construct(backend, name):
    case = TRACE[name]
    err = trace_error(backend, name)
    fn, text = case.lines[0]
    assert err.loc.filename == CASES_FILE
    assert err.loc.lineno == c.line_of(fn, text)
    assert c.source_line(fn, text).strip() in "".join(traceback.format_exception(err))


# --- carets under the failing expression (Python 3.11+) -----------------------------------

CARETS = [
    ("run", "index_in_helper", c.sum_first, "t = t + x[i]", "x[i]"),
    ("run", "index_in_helper", c.index_in_helper, "s = sum_first(x, n)", "sum_first(x, n)"),
    ("run", "int_floordiv", c.int_floordiv, "q = a // b", "a // b"),
    ("run", "broadcast", c.broadcast, "return s + y", "s + y"),
    ("run", "matmul", c.matmul, "c = a @ b", "a @ b"),
    ("run", "nested_loops", c.nested_loops, "t = t + x[i, j]", "x[i, j]"),
    ("trace", "one_branch_variable", c.one_branch_variable, "z = y + 1.0", "y + 1.0"),
    ("trace", "attribute_typo", c.attribute_typo, "return y.summ()", "y.summ"),
]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="carets need Python 3.11")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "kind, name, fn, text, expr", CARETS, ids=[f"{n}:{e}" for _, n, _, _, e in CARETS]
)
def test_carets_under_the_failing_expression(backend, kind, name, fn, text, expr):
    err = run_errors(backend, name)[1] if kind == "run" else trace_error(backend, name)
    line = c.source_line(fn, text)
    start = line.index(expr)
    want = (start, start + len(expr))
    at_line = [
        e for e in entries(err) if e.filename == CASES_FILE and e.lineno == c.line_of(fn, text)
    ]
    assert at_line, entries(err)
    assert (at_line[-1].colno, at_line[-1].end_colno) == want
    assert caret_columns("".join(traceback.format_exception(err)), line) == want


# --- NBGRAPH_TRACEBACK=full ---------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_full_traceback_keeps_internal_frames_at_run_time(backend, monkeypatch):
    monkeypatch.setenv("NBGRAPH_TRACEBACK", "full")
    eager, graph = run_errors(backend, "index_in_helper")
    assert isinstance(graph, type(eager))
    assert any(is_internal(e.filename) for e in entries(graph))
    notes = notes_of(graph)
    assert "getitem" in notes[0]
    assert not any(HIDDEN in n for n in notes)
    # NumPy's message, as eagerly; the compiled backend's own exception is the context
    assert str(graph) == str(eager)
    if backend != "interpret":
        assert isinstance(graph.__context__, IndexError) and graph.__context__ is not graph
        assert not graph.__suppress_context__
        assert "During handling of the above exception" in "".join(
            traceback.format_exception(graph)
        )


@pytest.mark.parametrize("backend", BACKENDS)
def test_filtered_traceback_shows_no_exception_chain(backend):
    _, graph = run_errors(backend, "index_in_helper")
    text = "".join(traceback.format_exception(graph))
    assert "During handling" not in text and "direct cause" not in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_full_traceback_keeps_internal_frames_at_trace_time(backend, monkeypatch):
    monkeypatch.setenv("NBGRAPH_TRACEBACK", "full")
    err = trace_error(backend, "one_branch_variable")
    assert isinstance(err, ng.UndefinedValueError)
    tb = entries(err)
    assert any(is_internal(e.filename) for e in tb)
    assert any(
        e.filename == CASES_FILE and e.lineno == c.line_of(c.one_branch_variable, "z = y + 1.0")
        for e in tb
    )


# --- state after an error -----------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_works_fails_and_works_again(backend):
    f = ng.function(c.index_in_helper, backend=backend)
    assert f(X, 3) == c.index_in_helper(X, 3)
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        f(X, 5)
    assert f(X, 3) == c.index_in_helper(X, 3)
    longer = np.arange(6.0)
    assert f(longer, 5) == c.index_in_helper(longer, 5)
    # A second, different failure reports its own values, not the first one's.
    short = np.arange(2.0)
    with pytest.raises(IndexError) as info:
        f(short, 4)
    assert str(info.value) == "index 2 is out of bounds for axis 0 with size 2"
    notes = "\n".join(notes_of(info.value))
    assert "float64[2]" in notes and "int 2" in notes
    assert "in iteration 3 of the loop" in notes
    assert f(X, 2) == c.index_in_helper(X, 2)
    assert f.trace_count == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_trace_time_error_then_other_graphs_work(backend):
    f = ng.function(c.one_branch_variable, backend=backend)
    for _ in range(2):
        with pytest.raises(ng.UndefinedValueError):
            f(X)
    g = ng.function(c.sum_first, backend=backend)
    assert g(X, 3) == c.sum_first(X, 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_output_before_a_failure_is_printed_once(backend, capsys):
    with pytest.raises(IndexError) as eager:
        c.loud_sum(X, 5)
    expected = capsys.readouterr().out
    assert expected.count("step") == 4
    f = ng.function(c.loud_sum, backend=backend)
    with pytest.raises(IndexError) as graph:
        f(X, 5)
    assert str(graph.value) == str(eager.value)
    assert capsys.readouterr().out == expected
    assert f(X, 2) == c.loud_sum(X, 2)
    out = capsys.readouterr().out
    assert out == "step 0 total 0.0\nstep 1 total 0.0\n" * 2
