"""Device memory and libraries of the CUDA backend: repeated calls reuse the pool's
blocks instead of allocating, and matrix products go to cuBLAS where CuPy is installed.

The pool's bookkeeping is tested on plain host blocks (it treats blocks as opaque); the
tests that need a real GPU are skipped on the simulator and run where
``NUMBA_ENABLE_CUDASIM=0`` and a GPU are present."""

import gc
import weakref

import numpy as np
import pytest
from numba import config, cuda

import nbgraph as ng
from nbgraph.backend.numba_cuda import pool

on_gpu = pytest.mark.skipif(
    bool(config.ENABLE_CUDASIM) or not cuda.is_available(), reason="needs an NVIDIA GPU"
)


class OutOfMemory(Exception):
    pass


class Device:
    """A device of ``capacity`` bytes as the pool sees one: blocks are objects that give
    their bytes back when collected (as numba-cuda's memory pointers do)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.used = 0

    def allocate(self, size: int) -> object:
        gc.collect()
        if self.used + size > self.capacity:
            raise OutOfMemory
        block = Block()
        self.used += size
        weakref.finalize(block, self.free, size)
        return block

    def free(self, size: int) -> None:
        self.used -= size


class Block:
    pass


def test_a_block_given_back_is_handed_out_again_for_the_same_size():
    blocks = pool.BlockPool(bytearray, lambda exc: False)
    first, give_back = blocks.take(1024)
    give_back()
    again, _ = blocks.take(1024)
    assert again is first
    other, _ = blocks.take(2048)
    assert other is not first
    assert blocks.allocations == 2


def test_sizes_share_a_block_when_they_round_to_the_same_size():
    assert pool.rounded(1) == pool.rounded(512) == 512
    assert pool.rounded(513) == 1024


def test_a_full_device_gets_the_idle_blocks_back_before_failing():
    device = Device(capacity=4096)
    blocks = pool.BlockPool(device.allocate, lambda exc: isinstance(exc, OutOfMemory))
    blocks.take(3072)[1]()  # taken and given back: idle, still counted by the device
    assert blocks.idle_bytes == 3072
    held = blocks.take(2048)  # fits only once the idle block is released
    assert blocks.idle_bytes == 0 and device.used == 2048

    with pytest.raises(OutOfMemory):  # nothing idle left to release: the error stands
        blocks.take(4096)
    del held


def test_idle_blocks_are_kept_only_up_to_the_limit(monkeypatch):
    monkeypatch.setattr(pool, "IDLE_LIMIT", 1024)
    blocks = pool.BlockPool(bytearray, lambda exc: False)
    taken = [blocks.take(1024) for _ in range(2)]
    for _, give_back in taken:
        give_back()
    assert blocks.idle_bytes == 1024


def fused(a, b):
    return np.maximum(a * b + 1.0, 0.0) * (a - 0.5 * b)


@on_gpu
def test_a_repeated_call_allocates_nothing_new():
    f = ng.function(fused, backend="cuda")
    a = cuda.to_device(np.linspace(0.0, 1.0, 10_000))
    b = cuda.to_device(np.linspace(1.0, 2.0, 10_000))
    f(a, b)  # compiles, and fills the pool
    gc.collect()
    blocks = pool.pool_of_current_device()
    before = blocks.allocations
    for _ in range(5):
        out = f(a, b)
        expected = fused(a.copy_to_host(), b.copy_to_host())
        np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-15)
        del out
    assert blocks.allocations == before


@on_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shapes", [((64, 32), (32, 16)), ((3, 8, 5), (5, 4)), ((7,), (7, 2)), ((6,), (6,))]
)
def test_matmul_on_the_gpu_has_numpys_dtype_shape_and_values(dtype, shapes):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(dtype) for s in shapes)
    got = ng.function(lambda x, y: x @ y, backend="cuda")(a, b)
    expected = a @ b
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == np.float32 else 1e-12)
