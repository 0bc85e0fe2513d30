"""The listing without what conversion added (``graph/scaffolding.py``), on the fuzzer's
random programs: nothing it shows refers to a node it leaves out, its projections are
numbered within the types it lists, and the drawing builds too."""

import re

import pytest
from fuzz_programs import fixed_programs, load, programs
from hypothesis import given

import nbgraph as ng
from nbgraph.viz.dot import to_dot

EXAMPLES = 200  # (tracing only: a few hundredths of a second each)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("listed")


@fixed_programs(EXAMPLES)
@given(program=programs())
def test_nothing_listed_refers_to_what_is_left_out(program, workdir):
    """On random programs: every operand the listing shows is listed itself (a param or
    a node line of its own), the proj numbers fit the types listed, and the drawing
    builds."""
    fn = ng.function(load(program.source, workdir).f, backend="interpret")
    try:
        graph = fn.graph(*program.args())
    except Exception:  # (refused or failing while tracing: nothing to list)
        return
    text = str(graph)
    defined = set(re.findall(r"^\s*(%\d+)(?: \(\w+\))? = ", text, re.M))
    for params in re.findall(r"^\s*params (.*)$", text, re.M):
        defined |= set(re.findall(r"%\d+", params))
    used = {n for line in text.splitlines() for n in re.findall(r"%\d+", line.split("#")[0])}
    assert used <= defined, (sorted(used - defined), text)
    assert "(_" not in text and ", _" not in text
    counts = {
        name: len([t for t in types.split(", ") if t])
        for name, types in re.findall(r"^\s*(%\d+) = (?:cond|while)\(.*\) : \((.*)\)", text, re.M)
    }
    for index, owner in re.findall(r"= proj\[(\d+)\]\((%\d+)\)", text):
        assert owner not in counts or int(index) < counts[owner], text
    to_dot(graph)
