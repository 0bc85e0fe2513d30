"""The CUDA backend's reduction, matrix-product and copy kernels against NumPy.

They run on numba-cuda's simulator (see conftest.py), where a block has 32 threads and
a reduction at most 4 blocks, so small arrays reach every launch strategy: a thread per
output (fewer elements than a block), a block per output, and several blocks per output
whose partial results a second launch reduces.  One test compiles every kernel, with the
argument types the host code launches it with, to PTX for a real GPU.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from nbgraph.backend.numba_cuda import device, layout, matmul, reductions

METHODS = ("sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all", "std", "var")
DTYPES = (np.float64, np.float32, np.int32, np.bool_)
rng = np.random.default_rng(0)


@pytest.fixture(autouse=True, scope="module")
def quick_simulator_barriers():
    """The simulator's block manager polls a block's threads while holding the GIL; a
    short switch interval hands the GIL on sooner (kernels with barriers run ~4x faster)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(5e-4)
    yield
    sys.setswitchinterval(interval)


def test_simulated_means_the_simulator_runs():
    # numba.config and numba.cuda must agree, whichever test imported numba first.
    fake = type(device.as_device(np.zeros(1))).__module__.startswith("numba.cuda.simulator")
    assert device.simulated() == fake == (os.environ["NUMBA_ENABLE_CUDASIM"] != "0")


def sample(shape, dtype):
    """Values that make every method meaningful: signs, zeros, repeated extremes."""
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind == "i":
        return rng.integers(-3, 4, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def reduced(d, method, axis=None, keepdims=False, dtype=None):
    """reduce() on device array ``d`` with NumPy's result dtype, back on the host."""
    return reductions.reduce(d, method, axis, keepdims, dtype).copy_to_host()


def check(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    if want.dtype.kind == "f":
        rtol = 1e-5 if want.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


def check_reduce(h, d, method, axis=None, keepdims=False):
    with warnings.catch_warnings():  # NumPy's warnings for means of nothing
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.asarray(getattr(h, method)(axis=axis, keepdims=keepdims))
    check(reduced(d, method, axis, keepdims, want.dtype), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", METHODS)
def test_reduce_one_thread_per_output(method, dtype):
    for shape, axes in (
        ((7,), (None, 0, -1)),
        ((3, 5), (None, 0, 1, -1)),
        ((2, 3, 4), (None, 1, -1)),
    ):
        h = sample(shape, dtype)
        d = device.as_device(h)
        for axis in axes:
            for keepdims in (False, True):
                check_reduce(h, d, method, axis, keepdims)


@pytest.mark.parametrize("method", METHODS)
def test_reduce_in_blocks(method):
    # Values repeat (ties for argmax/argmin across blocks).  Blocks of 32 threads, 4
    # blocks at most: (1000,): 4 blocks of 32 lanes, several elements a thread, then a
    # thread reduces their results; (40, 5) on axis 0: 4 blocks of 8 columns by 4
    # lanes, then a thread per column; (20, 50) on axis 1: 3 blocks of 8 rows by 4
    # lanes; (3, 40, 5) on axis 1: 3 blocks of 8 columns; (2, 500) on axis 1: 4 blocks
    # of 2 rows by 16 lanes, then a thread per row.
    values = np.round(rng.uniform(0.5, 1.5, 1000), 1)
    check_reduce(values, device.as_device(values), method)
    for h, axis in (
        (values[:200].reshape(40, 5), 0),
        (values.reshape(20, 50), 1),
        (values[:600].reshape(3, 40, 5), 1),
        (values.reshape(2, 500), -1),
    ):
        check_reduce(h, device.as_device(h), method, axis)


@pytest.mark.parametrize("method", ("sum", "argmin", "std"))
def test_reduce_partials_in_a_block(method, monkeypatch):
    # With up to 64 blocks and a "warp" of 8, 500 elements take 16 blocks, whose
    # results a block reduces.
    monkeypatch.setattr(reductions, "_max_blocks", lambda: 64)
    monkeypatch.setattr(reductions, "_WARP", 8)
    values = np.round(rng.uniform(0.5, 1.5, 500), 1)
    check_reduce(values, device.as_device(values), method)


def test_any_all_find_the_one_odd_element_in_blocks():
    h = np.zeros(1000, bool)
    assert not reduced(device.as_device(h), "any", dtype=bool)[()]
    assert reduced(device.as_device(~h), "all", dtype=bool)[()]
    h[999] = True
    assert reduced(device.as_device(h), "any", dtype=bool)[()]
    assert not reduced(device.as_device(~h), "all", dtype=bool)[()]


@pytest.mark.parametrize("dtype", (np.float64, np.float32))
@pytest.mark.parametrize("method", ("max", "min", "argmax", "argmin"))
def test_reduce_nan_propagates_and_argmax_finds_the_first(method, dtype):
    h = sample(1000, dtype)
    h[[900, 90, 40]] = np.nan  # in blocks 0, 2 and 1 of 4: the first NaN is not block 0's
    check_reduce(h, device.as_device(h), method)
    h = sample((3, 40), dtype)
    h[1, [30, 5]] = np.nan
    h[2, 39] = np.nan
    for axis in (0, 1):
        check_reduce(h, device.as_device(h), method, axis)
    check_reduce(h[:, :6], device.as_device(h[:, :6]), method, 1)


@pytest.mark.parametrize("method", METHODS)
def test_reduce_empty(method):
    for shape, axis in (((0,), None), ((3, 0), 1), ((0, 3), 0), ((0, 3), 1), ((0, 3), None)):
        h = np.zeros(shape)
        d = device.as_device(h)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                want = np.asarray(getattr(h, method)(axis=axis))
        except ValueError as error:
            with pytest.raises(ValueError, match=f"^{re.escape(str(error))}$"):
                reductions.reduce(d, method, axis, False, np.dtype(np.float64))
        else:
            check(reduced(d, method, axis, False, want.dtype), want)


def test_reduce_views():
    h = sample((6, 20), np.float64)
    d = device.as_device(h)
    assert not d[:, ::3].is_c_contiguous() and not d[::-2, 1:].is_c_contiguous()
    # (numba-cuda's .T of a 2-d device array is a copy; the simulator's a view)
    for view, host in ((d.T, h.T), (d[:, ::3], h[:, ::3]), (d[::-2, 1:], h[::-2, 1:])):
        for method in ("sum", "argmax"):
            for axis in (None, 0, 1):
                check_reduce(host, view, method, axis)
    check_reduce(h.T, d.T, "var", 1)
    h = sample((2, 6, 5), np.int32)
    check_reduce(h[:, ::2, ::-2], device.as_device(h)[:, ::2, ::-2], "sum", 1)


def test_reduce_rejects_what_numpy_rejects():
    d = device.as_device(np.zeros((2, 3)))
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
        reductions.reduce(d, "sum", 2, False, np.dtype(np.float64))
    with pytest.raises(TypeError, match="not supported on the CUDA backend"):
        reductions.reduce(
            device.as_device(np.zeros(3, complex)), "sum", None, False, np.dtype(complex)
        )


@pytest.mark.parametrize("ndim", (1, 2, 3, 4))
def test_contiguous_copies_views(ndim):
    shape = (3, 4, 5, 2)[:ndim]
    h = np.arange(np.prod(shape)).reshape(shape) * 1.5
    d = device.as_device(h)
    assert layout.contiguous(d) is d
    # (numba-cuda slices 1-d device arrays with positive steps only)
    index = (
        slice(None, None, -2 if ndim > 1 else 2),
        slice(1, None),
        slice(None, None, 2),
        slice(None, None, -1),
    )[:ndim]
    # (numba-cuda transposes only 2-d device arrays, by copying; the simulator any, by view)
    transposed = (d.T, h.T) if ndim == 2 or device.simulated() else (d, h)
    for view, host in ((d[index], h[index]), transposed):
        copy = layout.contiguous(view)
        assert copy.is_c_contiguous() and copy.dtype == h.dtype
        np.testing.assert_array_equal(copy.copy_to_host(), host)


def product(a, b):
    """matmul() of host arrays moved to the device, checked against NumPy's ``a @ b``."""
    want = a @ b
    got = matmul.matmul(device.as_device(a), device.as_device(b), want.dtype).copy_to_host()
    check(got, np.asarray(want))


@pytest.mark.parametrize("dtype", (np.float64, np.float32, np.int32))
def test_matmul_2d_edges_of_tiles(dtype):
    product(sample((7, 5), dtype), sample((5, 9), dtype))
    product(sample((1, 4), dtype), sample((4, 1), dtype))


def test_matmul_mixed_bool_and_wrapping_integers():
    product(sample((3, 5), np.int32), sample((5, 2), np.float64))
    product(sample((3, 5), bool), sample((5, 4), bool))
    a = np.array([[1, 2], [3, 4]], np.int8)
    with warnings.catch_warnings():  # the simulator's int8 scalars warn as they wrap
        warnings.simplefilter("ignore", RuntimeWarning)
        product(a, np.full((2, 2), 100, np.int8))  # as NumPy's do


def test_matmul_views():
    a, b = sample((7, 5), np.float64), sample((5, 9), np.float64)
    da, db = device.as_device(a), device.as_device(b)
    got = matmul.matmul(db.T, da.T, np.dtype(np.float64)).copy_to_host()
    check(got, b.T @ a.T)
    got = matmul.matmul(da[::2, 1:], db[1:, ::3], np.dtype(np.float64)).copy_to_host()
    check(got, a[::2, 1:] @ b[1:, ::3])


def test_matmul_vectors_and_stacks():
    m, v, w = sample((7, 5), np.float64), sample(5, np.float64), sample(7, np.float64)
    product(m, v)
    product(w, m)
    product(v, v)
    stack = sample((2, 3, 5), np.float64)
    product(stack, sample((2, 5, 4), np.float64))
    product(stack, sample((5, 4), np.float64))
    product(sample((4, 3), np.float64), stack)
    product(sample((1, 4, 3), np.float64), stack)
    product(stack, v)
    product(np.zeros((3, 0)), np.zeros((0, 4)))


def test_matmul_mismatches_raise_numpys_errors():
    for a, b in (((2, 4), (3, 5)), ((4,), (3,)), ((), (3,)), ((3,), ()), ((2, 3, 4), (3, 4, 5))):
        a, b = np.ones(a), np.ones(b)
        with pytest.raises(ValueError) as numpy_error:
            a @ b
        with pytest.raises(ValueError, match=f"^{re.escape(str(numpy_error.value))}$"):
            matmul.matmul(device.as_device(a), device.as_device(b), np.dtype(np.float64))


# Runs every launch the host code makes (device arrays replaced by NumPy arrays, kernels
# by recorders of their argument types), then compiles each kernel for those types.
PTX_SCRIPT = """
import re
import types as pytypes
import numpy as np
import numba
from numba import cuda, types
import numba.cuda.dispatcher
from nbgraph.backend.numba_cuda import device, launch, layout, matmul, reductions

try:
    cuda.compile_ptx(lambda a: None, (types.float64[:],), cc=(9, 0))
except Exception as error:
    print("no PTX compiler:", type(error).__name__, error)
    raise SystemExit(3)
# Without a GPU, numba-cuda's device functions ask an absent device for its compute
# capability when a kernel calling them compiles: answer for it.
numba.cuda.dispatcher.get_current_device = (
    lambda: pytypes.SimpleNamespace(compute_capability=(9, 0)))
device.cuda = lambda: cuda
device.empty = np.empty
layout.contiguous = lambda x: x
launch._launcher = lambda kernel, blocks, threads: kernel[blocks, threads]  # recorded below
launches = {}
METHOD = [None]  # the reduction being recorded

class Recorder:
    def __init__(self, kernel):
        self.kernel = kernel

    def __getitem__(self, config):
        return self.launch

    def launch(self, *args):
        launches[self.kernel.py_func, tuple(numba.typeof(a) for a in args)] = METHOD[0]

def recorded(factory):
    return lambda *key: Recorder(factory(*key))

reductions._thread_kernel = recorded(reductions._thread_kernel)
reductions._block_kernel = recorded(reductions._block_kernel)
matmul._kernel = recorded(matmul._kernel)
# Threads; blocks; blocks, then a thread; blocks, then a block.  Other dtypes than
# float64 take the kernel templates that float64 takes too, with their own loads and merges.
CASES = {np.float64: (((3, 5), 0), ((70000, 64), 1), ((1000,), None), ((300000,), None)),
         np.int32: (((3, 5), 0), ((300000,), None)),
         np.bool_: (((3, 5), 0), ((300000,), None))}
for dtype, cases in CASES.items():
    for method in reductions._PASSES:
        METHOD[0] = method
        for shape, axis in cases:
            h = np.zeros(shape, dtype)
            reductions.reduce(h, method, axis, False, getattr(h, method)(axis=axis).dtype)
METHOD[0] = None
for a, b in ((np.float64, np.float64), (np.float32, np.float32), (np.int32, np.float64),
             (np.int8, np.int8), (np.bool_, np.bool_)):
    a, b = np.ones((2, 3, 4), a), np.ones((4, 5), b)
    matmul.matmul(a, b, (a @ b).dtype)
for ndim in (1, 2, 3, 4):
    launches[layout._copy_kernel().py_func,
             (types.Array(types.float64, ndim, "A"), types.float64[::1])] = None
# The fast launch passes an array as the parameters the compiled kernel declares.
def fake_array(ndim):
    return pytypes.SimpleNamespace(
        size=1, dtype=np.dtype(np.float64), shape=(1,) * ndim, strides=(8,) * ndim,
        device_ctypes_pointer=pytypes.SimpleNamespace(value=1))

for (function, signature), method in launches.items():
    ptx, _ = cuda.compile_ptx(function, signature, cc=(9, 0))
    # A plain float multiply may be fused with the following add into an FMA by ptxas;
    # var's squares must be rounded first, as NumPy's are (mul.rn is never fused).
    if method in ("var", "std"):
        assert not re.search(r"\\b(mul|fma\\.rn)\\.f(32|64)\\b", ptx), (method, signature)
    entry = ptx[ptx.index(".entry"):]
    declared = entry[:entry.index(")")].count(".param")
    passed = sum(len(launch.array_params(fake_array(t.ndim))) if isinstance(t, types.Array)
                 else 1 for t in signature)
    assert declared == passed, (function.__name__, signature, declared, passed)
print(len(launches), "kernels compiled")
"""


def test_kernels_compile_for_a_gpu():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PTX_SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[3],
    )
    if run.returncode == 3:
        pytest.skip(f"numba-cuda cannot compile PTX here (NVVM missing?): {run.stdout}")
    assert run.returncode == 0, run.stderr[-5000:]
    assert run.stdout.endswith(" kernels compiled\n"), run.stdout
