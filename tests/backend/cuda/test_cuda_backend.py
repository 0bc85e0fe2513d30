"""The CUDA backend as a user meets it: device arrays in and out, data kept on the device
between kernels, fusion, errors found on the device and mapped to the user's line, and
a clear refusal of what it cannot run.  (Results against eager code on every supported
case: the differential suite, which runs each test on this backend too.)"""

import traceback

import numpy as np
import pytest
from numba import cuda

import nbgraph as ng
from nbgraph.backend.numba_cuda import CudaGraph, DeviceUnsupportedError
from nbgraph.graph.types import is_device_array

X = np.linspace(-1.0, 2.0, 7)


def fused(a, b):
    return np.maximum(a * b + 1.0, 0.0) * (a - 0.5 * b)


def relax(x, steps):
    for _ in range(steps):
        x = 0.5 * x + 1.0
    return x


def test_device_arrays_in_give_device_arrays_out_and_numpy_gives_numpy():
    f = ng.function(fused, backend="cuda")
    expected = fused(X, X[::-1])
    host = f(X, X[::-1])
    assert type(host) is np.ndarray
    np.testing.assert_allclose(host, expected, rtol=1e-15)
    device = f(cuda.to_device(X), cuda.to_device(X[::-1].copy()))
    assert is_device_array(device)
    np.testing.assert_allclose(device.copy_to_host(), expected, rtol=1e-15)


def test_a_fused_group_is_one_kernel():
    graph = ng.function(fused, backend="cuda").graph(X, X)
    program = CudaGraph(graph)
    assert len(program.plan.steps) == 1  # four array operations, one kernel


def test_loop_state_stays_on_the_device(monkeypatch):
    """Ten iterations of array work copy nothing back until the result is returned."""
    f = ng.function(relax, backend="cuda")
    x = cuda.to_device(X)
    f(x, 2)  # compile first
    copies = []
    real = type(x).copy_to_host
    monkeypatch.setattr(
        type(x), "copy_to_host", lambda self, *a, **k: copies.append(1) or real(self, *a, **k)
    )
    out = f(x, 10)
    assert copies == []
    np.testing.assert_allclose(out.copy_to_host(), relax(X, 10), rtol=1e-15)


def gather(x, idx):
    return x[idx] * 2.0


def checked(x):
    total = np.sum(x)
    assert total > 0, "the total must be positive"
    return x / total


def test_out_of_bounds_gather_is_found_on_the_device_and_shown_at_the_users_line():
    f = ng.function(gather, backend="cuda")
    with pytest.raises(IndexError, match="index 9 is out of bounds") as info:
        f(X, np.array([0, 9]))
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (last.name, last.line) == ("gather", "return x[idx] * 2.0")
    np.testing.assert_allclose(f(X, np.array([1, -1])), gather(X, np.array([1, -1])))


def test_assert_on_a_device_value_fails_at_the_users_line():
    f = ng.function(checked, backend="cuda")
    np.testing.assert_allclose(f(np.abs(X)), checked(np.abs(X)))
    with pytest.raises(AssertionError, match="the total must be positive") as info:
        f(-np.abs(X))
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert last.line == 'assert total > 0, "the total must be positive"'
    np.testing.assert_allclose(f(np.abs(X)), checked(np.abs(X)))  # the error is cleared


def power(x, k):
    return x**k


def test_integer_power_with_a_negative_exponent_raises_numpys_error():
    f = ng.function(power, backend="cuda")
    assert f(np.arange(4), 2).tolist() == [0, 1, 4, 9]
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        f(np.arange(4), np.array([1, 1, -1, 1]))


def sorted_copy(x):
    return np.sort(x)


def test_what_the_gpu_cannot_run_is_refused_before_running_with_the_line():
    f = ng.function(sorted_copy, backend="cuda")
    with pytest.raises(DeviceUnsupportedError) as info:
        f(X)
    message = str(info.value)
    assert "np.sort" in message and "backend='cpu'" in message
    assert f"line {sorted_copy.__code__.co_firstlineno + 1}" in message
    assert isinstance(info.value, NotImplementedError)


def test_compare_times_the_cuda_backend_against_eager():
    result = ng.compare(ng.function(fused, backend="cuda"), X, X, rounds=2)
    assert result.agreement.agree
    assert result.graph.median > 0


PTX_SCRIPT = """
from types import SimpleNamespace

import numba.cuda.dispatcher
import numpy as np

import nbgraph as ng
from nbgraph.backend.numba_cuda import CudaGraph

# numba-cuda asks the current GPU for its compute capability when it compiles a device
# function a kernel calls; here, with no GPU, the answer is the one compile_ptx is given.
numba.cuda.dispatcher.get_current_device = lambda: SimpleNamespace(
    compute_capability=(9, 0))

def kernels(x, y, k):
    a = np.where(x > y, np.exp(x) // 2.0, np.maximum(y, 0.5) % 3.0)
    b = (k ** 2 + np.arange(3)) * np.float32(1.5)
    return a, b, np.round(x, 1) + np.clip(y, -1, 1) ** 0.5, x.astype(np.int32) >> 1

graph = ng.function(kernels, backend="cuda").graph(np.ones(3), np.ones((2, 3)), 2)
texts = CudaGraph(graph).ptx(cc=(9, 0))
assert all(".entry" in t for t in texts), [t[:300] for t in texts]
print("compiled", len(texts))

# The backend's fixed kernels: scans, masks, creation, device checks.
from numba import cuda, types
from nbgraph.backend.numba_cuda import checks, creation, scan

f8, i8, b1 = types.float64, types.int64, types.boolean
A = lambda t, n=1, layout="A": types.Array(t, n, layout)
fixed = [
    (scan._chunk_kernel(np.dtype(np.float64)).py_func, (A(f8), A(f8), A(f8), i8)),
    (scan._add_totals.py_func, (A(f8), A(f8), i8, i8)),
    (scan._scan_lines.py_func, (A(f8, 3), A(f8, 3), i8)),
    (scan._compact.py_func, (A(f8), A(b1), A(i8), A(f8))),
    (scan._compact_rows.py_func, (A(f8, 2), A(b1), A(i8), A(f8, 2))),
    (creation.ramp.py_func, (A(f8), f8, f8, f8, b1)),
    (checks.check.py_func, (A(i8), A(b1, 0), i8)),
    (checks.take_rows.py_func, (A(i8), A(f8, 2), A(f8, 2), A(i8), i8)),
]
for fn, signature in fixed:
    cuda.compile_ptx(fn, signature, cc=(9, 0))
print("fixed", len(fixed))

# NumPy's int64 wraps around, so (x - 1) > x holds for the minimum alone.  With LLVM's
# "no signed wrap" flag it is folded to False; computed wrapping, it becomes a test of
# x against the minimum.
def below(x):
    return (x - 1) > x

(text,) = CudaGraph(ng.function(below, backend="cuda").graph(np.ones(3, np.int64))).ptx()
print("wraps", "-9223372036854775808" in text)

# ptxas fuses a plain float multiply and the add after it into one FMA (one rounding);
# NumPy rounds the product first.  Products are mul.rn, which is never fused.
import re

def muladd(a, b, c):
    return a * b + c, c - np.square(a)

for dtype in (np.float64, np.float32):
    x = np.ones(3, dtype)
    ptx = "\\n".join(CudaGraph(ng.function(muladd, backend="cuda").graph(x, x, x)).ptx())
    bits = np.dtype(dtype).itemsize * 8
    fused = re.search(r"\\b(mul|fma\\.rn)\\.f(32|64)\\b", ptx)
    print("unfused", not fused and f"mul.rn.f{bits}" in ptx)
"""


def test_generated_kernels_compile_to_ptx_without_a_gpu(tmp_path):
    """Outside the simulator: numba-cuda's real compiler (NVVM, from nbgraph[cuda]),
    no GPU needed."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    script = tmp_path / "kernels.py"  # graph mode reads the function's source
    script.write_text(PTX_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    if "NVVM" in done.stderr and "not found" in done.stderr.lower():
        pytest.skip("numba-cuda's compiler (NVVM) is not installed")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [
        "compiled",
        "4",
        "fixed",
        "8",
        "wraps",
        "True",
        "unfused",
        "True",
        "unfused",
        "True",
    ]


def shifted(x, k):
    return x + k


# (The simulator adds NumPy scalars, which warn where they wrap around.)
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_python_ints_outside_the_dtype_raise_numpys_overflow_error():
    f = ng.function(shifted, backend="cuda")
    small = np.array([1, 200], dtype=np.uint8)
    assert f(small, 100).tolist() == [101, 44]  # wraps around, as NumPy does
    with pytest.raises(OverflowError, match="Python integer -3 out of bounds for uint8"):
        f(small, -3)


def running_sums(x, m):
    return np.cumsum(x), np.cumprod(x[:12] * 0.5 + 1.0), m.cumsum(axis=0), np.cumsum(m, axis=1)


def test_cumulative_sums_scan_in_parallel_across_blocks():
    """Long enough for several blocks (and a scan of their totals) on the simulator."""
    x = np.random.default_rng(5).standard_normal(700)
    m = np.arange(12.0).reshape(3, 4)
    got = ng.function(running_sums, backend="cuda")(x, m)
    for g, e in zip(got, running_sums(x, m)):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


def selections(x, m):
    y = x.copy()
    y[x < 0] = 0.0
    return x[x > 0.5], m[m[:, 0] > 3.0], y, x[x > 100.0]


def test_boolean_masks_select_and_assign_on_the_device():
    x = np.random.default_rng(6).standard_normal(300)
    m = np.arange(12.0).reshape(4, 3)
    got = ng.function(selections, backend="cuda")(x, m)
    for g, e in zip(got, selections(x, m)):
        assert g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def unrolled_loss(w, x, n):
    h = x
    for _ in range(n):
        h = np.tanh(h * w + 0.1)
    return np.sum(h * h)


def training(w, x, steps):
    losses = []
    for _ in range(steps):
        value, gradient = ng.value_and_grad(unrolled_loss)(w, x, 3)
        w = w - 0.1 * gradient
        losses.append(value)
    return w, np.array(losses)


def test_a_training_loop_takes_gradients_of_loops_on_the_device():
    """The forward loop's saved states are a graph list of device arrays, read back by
    the backward loop on the device; the result is the CPU backend's."""
    w, x = np.full(4, 0.5), np.linspace(-1.0, 1.0, 4)
    expected = ng.function(training, backend="cpu")(w, x, 3)
    got = ng.function(training, backend="cuda")(cuda.to_device(w), cuda.to_device(x), 3)
    assert is_device_array(got[0])
    np.testing.assert_allclose(got[0].copy_to_host(), expected[0], rtol=1e-12)
    np.testing.assert_allclose(_host(got[1]), expected[1], rtol=1e-12)


def _host(value):
    return value.copy_to_host() if is_device_array(value) else value


def picked(x, index):
    return np.sum(np.sin(x[index]) * x[index])


@pytest.mark.parametrize(
    "x, index",
    [
        (np.linspace(0.0, 1.0, 5), np.array([0, 3, 3, -1, 0, 3])),
        (np.arange(12.0).reshape(4, 3) / 7, np.array([[1, 1], [-4, 2]])),
    ],
    ids=["repeated", "rows"],
)
def test_the_gradient_of_integer_indexing_adds_repeated_picks_on_the_device(x, index):
    """x[index]'s gradient is np.add.at into zeros: an element picked twice gets both
    contributions, in NumPy's order, as on the CPU backend."""
    expected = ng.grad(picked, backend="cpu")(x, index)
    got = ng.grad(picked, backend="cuda")(cuda.to_device(x), cuda.to_device(index))
    np.testing.assert_allclose(got.copy_to_host(), expected, rtol=1e-13)  # (GPU sin)


def test_an_index_out_of_bounds_in_the_gradient_raises_numpys_error():
    with pytest.raises(IndexError):
        ng.grad(picked, backend="cuda")(np.ones(3), np.array([0, 5]))
