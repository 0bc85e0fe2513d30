"""Fuzzing graph mode against eager Python: a fixed-seed run of random programs, and every
program the fuzzer has found failing, kept in regressions/ (``tests/fuzz/run.py`` adds them).
"""

import ast
import os
from pathlib import Path

import harness
import numpy as np
import pytest
from fuzz_programs import Program, load, programs, run_program
from hypothesis import HealthCheck, given, settings

BACKENDS = os.environ.get("NBGRAPH_TEST_BACKENDS", "interpret,cpu,cuda").split(",")
REGRESSIONS = Path(__file__).parent / "regressions"

# About 1 s per program on a 2-core machine, most of it compiling for the CPU backend.
SMOKE_EXAMPLES = 40


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the programs are written: graph mode converts a function's source file."""
    return tmp_path_factory.mktemp("programs")


def backends_for(program: Program) -> list[str]:
    """Interpret and CPU for every program, CUDA (the simulator, in tests) for one in ten."""
    wanted = ["interpret", "cpu", *(["cuda"] if program.on_cuda else [])]
    return [backend for backend in wanted if backend in BACKENDS]


@settings(
    max_examples=SMOKE_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture],
)
@given(program=programs())
def test_random_programs_agree(program: Program, workdir: Path) -> None:
    ran = run_program(program, backends_for(program), workdir)
    assert ran.get("interpret", True) and ran.get("cpu", True), ran


def test_generator_covers_the_constructs() -> None:
    """Programs mix every construct and kind of input the fuzzer is meant to exercise."""
    seen: list[Program] = []

    @settings(max_examples=300, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def collect(program: Program) -> None:
        seen.append(program)

    collect()
    text = "\n".join(p.source for p in seen)
    for construct in ("if ", "elif ", "else:", "while ", "for ", " in range(", "enumerate(",
                      "zip(", "break", "continue", "return", ".append(", "np.array(lst",
                      "np.stack(lst", "print(", "assert ", "raise ", "def h0(", "h0(", "] = ",
                      " += ", "np.sum(", "np.where(", " if ", " for e"):
        assert construct in text, construct
    assert any(p.source.count("return") > 1 for p in seen)  # early returns
    arguments = [p.args() for p in seen]
    dtypes = {a[0].dtype.name for a in arguments}
    assert dtypes == {"float64", "float32", "int64", "int32", "complex128"}
    assert any(len(a[0]) == 0 for a in arguments)
    assert any(a[2] == 0 for a in arguments)
    assert any(np.isnan(a[0]).any() for a in arguments if a[0].dtype.kind == "f")
    assert any(np.isinf(a[0]).any() for a in arguments if a[0].dtype.kind == "f")
    assert any((a[0] >= 2**62).any() for a in arguments if a[0].dtype == np.int64)
    assert any((a[0] < 0).any() for a in arguments if a[0].dtype.kind == "i")
    assert any(p.on_cuda for p in seen) and not all(p.on_cuda for p in seen)


def regression_cases() -> list:
    """One case per regression file and backend; known bugs are strict xfails."""
    cases = []
    for path in sorted(REGRESSIONS.glob("*.py")):
        names = {}
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and node.targets[0].id in ("BACKENDS", "XFAIL"):
                names[node.targets[0].id] = ast.literal_eval(node.value)
        xfail = names.get("XFAIL", {})
        for backend in names.get("BACKENDS", ("interpret", "cpu", "cuda")):
            marks = [pytest.mark.xfail(strict=True, reason=xfail[backend])] if (
                backend in xfail) else []
            cases.append(pytest.param(path, backend, marks=marks,
                                      id=f"{path.stem}-{backend}"))
    return cases


@pytest.mark.parametrize("path, backend", regression_cases())
def test_regression(path: Path, backend: str, workdir: Path) -> None:
    if backend not in BACKENDS:
        pytest.skip(f"NBGRAPH_TEST_BACKENDS leaves out {backend}")
    module = load(path.read_text(), workdir)
    harness.check(module.f, *module.ARGS, backend=backend)
