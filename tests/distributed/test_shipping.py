"""Graph functions pickle as their traced graphs: a process without the source runs them."""

import pickle
import subprocess
import sys

import dask_functions as f
import numpy as np

import nbgraph as ng

_RECEIVER = """
import pickle, sys
import numpy as np
try:
    import dask_functions
except ImportError:
    pass
else:
    raise SystemExit("the test module must not be importable here")
fn = pickle.loads(sys.stdin.buffer.read())
x = np.arange(12.0).reshape(6, 2) * 3.0
np.save(sys.stdout.buffer, fn(x))
try:
    fn(x.astype(np.float32))
except TypeError as exc:
    print("\\nnew signature:", exc, file=sys.stderr)
try:
    fn.eager(x)
except NotImplementedError as exc:
    print("eager:", exc, file=sys.stderr)
"""


def test_round_trip_in_a_process_without_the_source(tmp_path):
    x = np.arange(12.0).reshape(6, 2) * 3.0
    expected = f.halvings(x)  # traces the float64 2-d signature
    done = subprocess.run(
        [sys.executable, "-c", _RECEIVER],
        input=pickle.dumps(f.halvings),
        capture_output=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    (tmp_path / "out.npy").write_bytes(done.stdout)
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), expected)
    errors = done.stderr.decode()
    assert "new signature: halvings was sent to this process as its traced graphs" in errors
    assert "(float64 2-d array)" in errors
    assert "eager: halvings was sent to this process as its traced graphs only" in errors


def test_unpickling_in_the_same_process_gives_the_function_back():
    f.scaled(np.ones(3), 1.0)
    assert pickle.loads(pickle.dumps(f.scaled)) is f.scaled


def test_a_new_trace_ships_the_new_graph_too():
    fn = ng.function(f.softplus)
    fn(np.ones(3))
    first = pickle.dumps(fn)
    fn(np.ones((2, 2)))
    assert pickle.dumps(fn) != first


def test_a_lambda_rebuilt_from_its_graph():
    from nbgraph.distributed.shipping import reduce_function, restore_function

    fn = ng.function(lambda v: v * 2.0)
    fn(np.ones(2))
    _, (_, payload) = reduce_function(fn)
    rebuilt = restore_function("a token no process has seen", payload)  # as a worker does
    assert rebuilt is not fn and rebuilt.__name__ == "<lambda>"
    np.testing.assert_array_equal(rebuilt(np.ones(2)), [2.0, 2.0])
