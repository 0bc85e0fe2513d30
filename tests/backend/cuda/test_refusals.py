"""The CUDA backend refuses exactly what refusals.py lists: each entry's example is refused
with a message that entry matches (an entry the backend no longer refuses fails here)."""

import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import refusals

import nbgraph as ng
from nbgraph.backend.numba_cuda import DeviceUnsupportedError


def example(name: str):
    """The entry's example as a function in a file of its own (graph mode reads source)."""
    refusal = refusals.REFUSALS[name]
    path = Path(tempfile.mkdtemp()) / f"refusal_{len(name)}.py"
    path.write_text(f"import numpy as np\n\n\ndef f(x):\n    {refusal.example}\n")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace["f"]


@pytest.mark.parametrize("name", list(refusals.REFUSALS))
def test_each_listed_refusal_still_happens(name):
    refusal = refusals.REFUSALS[name]
    with pytest.raises(DeviceUnsupportedError) as info:
        ng.function(example(name), backend="cuda")(refusal.argument)
    assert refusals.expected(info.value) == name, str(info.value)


def test_an_unlisted_refusal_is_not_expected():
    assert (
        refusals.expected(
            DeviceUnsupportedError(
                "the CUDA backend cannot run np.cumsum on (float64 1-d array) on the GPU"
            )
        )
        is None
    )
