"""Fuzzing graph mode against eager Python: a fixed-seed run of random programs, and every
program the fuzzer has found failing, kept in regressions/ (``tests/fuzz/run.py`` adds them).

A random program that fails the way an open regression does (the same backend, operation
and kind of difference, ``known_open``) is counted, not failed; any other failure fails.
"""

import os
from pathlib import Path

import numpy as np
import pytest
from fuzz_programs import (
    Disagreement,
    Program,
    check_backends,
    fixed_programs,
    load,
    programs,
    run_program,
)
from hypothesis import HealthCheck, given, settings
from known_open import KnownDisagreement, Regression, known, regressions

BACKENDS = os.environ.get("NBGRAPH_TEST_BACKENDS", "interpret,cpu,cuda").split(",")

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


@fixed_programs(SMOKE_EXAMPLES)
@given(program=programs())
def test_random_programs_agree(program: Program, workdir: Path) -> None:
    try:
        ran = run_program(program, backends_for(program), workdir)
    except Disagreement as exc:
        if known(exc.backend, program.source, str(exc)) is None:
            raise
        return
    assert set(ran) == set(backends_for(program)), ran


def test_generator_covers_the_constructs() -> None:
    """Programs mix every construct and kind of input the fuzzer is meant to exercise."""
    seen: list[Program] = []

    # derandomize seeds from this test's source; 2000 programs hold the rarer constructs
    # (a list's insert is in about one program in a hundred) whatever that seed is.
    @settings(
        max_examples=2000, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(programs())
    def collect(program: Program) -> None:
        seen.append(program)

    collect()
    text = "\n".join(p.source for p in seen)
    for construct in (
        "if ",
        "elif ",
        "else:",
        "while ",
        "for ",
        " in range(",
        "enumerate(",
        "zip(",
        "break",
        "continue",
        "return",
        ".append(",
        "np.array(lst",
        "np.stack(lst",
        "print(",
        "assert ",
        "raise ",
        "def h0(",
        "h0(",
        "] = ",
        " += ",
        "np.sum(",
        "np.where(",
        " if ",
        " for e",
        '= {"a": ',
        "lambda",
        "def g",
        "try:",
        "finally:",
        "del ",
        "global ",
        ".pop(",
        ".insert(",
        ".extend(",
        "x[-1] = ",
        " % ",
        " // ",
        "max(",
        "np.exp(",
    ):
        assert construct in text, construct
    assert any(p.source.count("return") > 1 for p in seen)  # early returns
    arguments = [p.args() for p in seen]
    dtypes = {a[0].dtype.name for a in arguments}
    assert dtypes == {"float64", "float32", "int64", "int32", "complex128"}
    assert any(len(a[0]) == 0 for a in arguments)
    assert any(a[2] == 0 for a in arguments)
    assert any(np.isnan(a[0]).any() for a in arguments if a[0].dtype.kind == "f")
    assert any(np.isinf(a[0]).any() for a in arguments if a[0].dtype.kind == "f")
    assert any(np.signbit(a[0][a[0] == 0]).any() for a in arguments if a[0].dtype.kind == "f")
    assert any(p.python_constructs for p in seen) and not all(p.python_constructs for p in seen)
    assert any((a[0] >= 2**62).any() for a in arguments if a[0].dtype == np.int64)
    assert any((a[0] < 0).any() for a in arguments if a[0].dtype.kind == "i")
    assert any(p.on_cuda for p in seen) and not all(p.on_cuda for p in seen)


def regression_cases() -> list:
    """One case per regression file and backend; open ones are strict xfails that expect
    the disagreement their signature describes (a crash or another difference fails)."""
    cases = []
    for regression in regressions():
        for backend in regression.backends:
            marks = (
                [
                    pytest.mark.xfail(
                        strict=True, raises=KnownDisagreement, reason=regression.xfail[backend]
                    )
                ]
                if (backend in regression.xfail)
                else []
            )
            cases.append(
                pytest.param(regression, backend, marks=marks, id=f"{regression.name}-{backend}")
            )
    return cases


@pytest.mark.parametrize("regression, backend", regression_cases())
def test_regression(regression: Regression, backend: str, workdir: Path) -> None:
    if backend not in BACKENDS:
        pytest.skip(f"NBGRAPH_TEST_BACKENDS leaves out {backend}")
    source = regression.path.read_text()
    module = load(source, workdir)
    try:
        outcome = check_backends(module.f, module.ARGS, [backend])[backend]
        if outcome not in ("ran", "refused: DeviceUnsupportedError"):
            raise Disagreement(backend, f"graph mode {outcome}")
    except AssertionError as exc:
        if regression.matches(backend, source, str(exc)):
            raise KnownDisagreement(str(exc)) from exc
        raise
    if outcome != "ran":
        pytest.skip(f"the {backend} backend {outcome}")
