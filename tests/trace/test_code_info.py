"""What the recorder learns from the source before running it: loops that can be
followed fast, and loop lengths known in advance."""

import ast
import builtins

import numpy as np
import programs

from nbgraph.trace.code_info import ANYTHING, ITEMS, UNCHANGED, code_info
from nbgraph.trace.trips import trip_count


def loop_of(fn):
    loops = {line.loop for line in code_info(fn.__code__).lines.values() if line.loop}
    assert len(loops) == 1
    return loops.pop()


def test_a_name_written_in_both_branches_of_an_if_is_written_once():
    assert loop_of(programs.branches).flat
    assert loop_of(programs.fills).flat  # out[i] = ...: one line assigns into out


def test_loops_that_write_a_name_twice_or_hold_a_loop_are_not_flat():
    def twice(n):
        for i in range(n):
            x = i
            x = x + 1
        return x

    assert not loop_of(twice).flat
    loops = {
        line.loop.header: line.loop
        for line in code_info(programs.nested.__code__).lines.values()
        if line.loop
    }
    outer, inner = sorted(loops)
    assert not loops[outer].flat and loops[inner].flat


def test_how_lines_may_change_objects():
    lines = code_info(programs.aliases.__code__).lines
    first = programs.aliases.__code__.co_firstlineno
    assert lines[first + 1].mutating == ANYTHING  # a = np.zeros(4): a call
    assert lines[first + 2].mutating == UNCHANGED  # b = a
    assert lines[first + 3].mutating == ITEMS  # b[0] = 7.0
    assert lines[first + 3].item_stores == {"b"}


def test_loop_lengths_known_in_advance():
    names = {"n": 10, "xs": [1, 2, 3], "a": np.zeros((4, 2))}

    def count(text, local=names):
        return trip_count(ast.parse(text, mode="eval").body, local, {})

    assert count("range(n)") == 10
    assert count("range(2, n - 1, 3)") == 3
    assert count("range(len(xs))") == 3
    assert count("zip(xs, a)") == 3
    assert count("enumerate(a)") == 4
    assert count("xs") == 3
    assert count("iter(xs)") is None  # not plain: it may be anything
    assert count("range(f(n))") is None
    assert count("range(n)", {**names, "range": builtins.reversed}) is None  # shadowed
