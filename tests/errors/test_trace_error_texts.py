"""What an error raised while tracing looks like: the frame inside a graph loop or branch
reads as the user's own function (its name, parameters, the failing line's text), and
messages about types that differ between paths describe the user's code, not conversion's
(no else branch that is not there, no internal names) and say how to fix it."""

from __future__ import annotations

import inspect
import linecache
import re
import sys

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.errors.exceptions import LoopTypeError

INTERNAL = re.compile(r"itr_\d|retval_|do_return_|<if-exp>|<and>|<or>|Traced")


def drawdown_with_typo(p, scale=1.0):
    peak = p[0]
    worst = 0.0
    for x in p:
        peak = max(peak, x)
        dd = (peak - x) / peak
        worst = max(worst, dd * scale + undefined_name)  # noqa: F821
    return worst


def innermost(tb):
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def test_frame_inside_graph_loop_is_the_users_function():
    with pytest.raises(NameError) as info:
        ng.function(drawdown_with_typo, backend="interpret")(np.array([1.0, 2.0, 0.5]))
    tb = innermost(info.value.__traceback__)
    frame = tb.tb_frame
    assert frame.f_code.co_name == "drawdown_with_typo"
    assert inspect.getargvalues(frame).args == ["p", "scale"]
    line = linecache.getline(frame.f_code.co_filename, tb.tb_lineno)
    assert "undefined_name" in line
    assert frame.f_code.co_firstlineno == drawdown_with_typo.__code__.co_firstlineno


def test_ipython_shows_the_users_signature_and_line():
    ultratb = pytest.importorskip("IPython.core.ultratb")
    try:
        ng.function(drawdown_with_typo, backend="interpret")(np.array([1.0, 2.0, 0.5]))
    except NameError:
        text = ultratb.AutoFormattedTB(mode="Context", theme_name="nocolor").text(*sys.exc_info())
    assert "in drawdown_with_typo(p, scale)" in text
    users_frames = text[text.rindex("in drawdown_with_typo(") :]
    assert "worst = max(worst, dd * scale + undefined_name)" in users_frames
    assert not INTERNAL.search(users_frames), users_frames


def worst_starts_as_int(p):
    peak = p[0]
    worst = 0
    for x in p:
        peak = max(peak, x)
        dd = (peak - x) / peak
        if dd > worst:
            worst = dd
    return worst


def conditional_expression_ranks(x, n):
    return x / 2 if n > 0 else n


def test_dtype_conflict_in_if_without_else():
    with pytest.raises(LoopTypeError) as info:
        ng.function(worst_starts_as_int, backend="interpret")(np.array([1.0, 2.0, 0.5]))
    message = str(info.value)
    assert "else" not in message
    assert "'worst'" in message and "worst = 0.0" in message and ".eager" in message


def test_conditional_expression_conflict_names_no_internal_variable():
    with pytest.raises(LoopTypeError) as info:
        ng.function(conditional_expression_ranks, backend="interpret")(np.arange(3.0), 2)
    message = str(info.value)
    assert "conditional expression" in message
    assert not INTERNAL.search(message), message


def int_or_half(a):
    if a > 0:
        return a
    return 0.5


def test_return_types_that_differ_name_no_path_backwards():
    """An early return puts the rest of the function in a branch conversion adds: the
    message must not say the user's condition is true where it is false."""
    with pytest.raises(LoopTypeError) as info:
        ng.function(int_or_half, backend="interpret")(np.int64(1))
    message = str(info.value)
    assert "the return value has dtype float on one path and int64 on another" in message
    assert "is true" not in message and not INTERNAL.search(message), message
