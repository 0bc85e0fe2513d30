"""The long fuzz run (``make fuzz N=10000``): random programs, eager against graph mode.

Runs N programs from ``fuzz_programs.programs()`` eagerly and in graph mode on the interpret and
CPU backends, and on the CUDA backend for one program in ten (numba-cuda's simulator unless
NUMBA_ENABLE_CUDASIM=0). Worker processes, one per core, each run Hypothesis on a batch of
programs with their own seed; a failing program is shrunk by Hypothesis and written to
tests/fuzz/regressions/ with its arguments, where ``test_fuzz.py`` runs it from then on. A
worker that stops making progress (a hang) or dies (a crash) has the program it was running
saved the same way. A program that fails the way an open regression does (``known_open``:
the same backend, operation and kind of difference) is counted under that regression's name
and the run goes on. Prints a summary: programs per backend, known open outcomes by
signature, new failures, programs per second.

    python tests/fuzz/run.py --n 1000 [--jobs 2] [--seed 1] [--batch 100]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
import zlib
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (HERE.parents[1], HERE.parent / "differential", HERE):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

REGRESSIONS = HERE / "regressions"
HANG_SECONDS = 300  # no new program for this long: the current one hangs


def worker(seed: int, count: int, status: Path) -> dict:
    """Run up to ``count`` programs under Hypothesis; returns counts and the failure, if any.

    ``status`` holds the program being run, for the parent to save if this process hangs.
    """
    from fuzz_programs import Disagreement, Program, programs, run_program
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from known_open import known

    from nbgraph.errors.exceptions import NbgraphPerformanceWarning

    warnings.simplefilter("ignore")
    warnings.simplefilter("error", NbgraphPerformanceWarning)  # as in the test suite
    workdir = Path(tempfile.mkdtemp(prefix="nbgraph-fuzz-"))
    counts: Counter = Counter()
    failure: dict = {}
    examples: dict[str, dict] = {}  # the first program counted under each known outcome

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        derandomize=False,
        phases=(Phase.generate, Phase.shrink),
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @hypothesis_seed(seed)
    @given(programs())
    def fuzz(program: Program) -> None:
        backends = ["interpret", "cpu", *(["cuda"] if program.on_cuda else [])]
        status.write_text(
            json.dumps(
                {
                    "program": program.source,
                    "args": program.args_source,
                    "backends": backends,
                    "counts": counts,
                }
            )
        )
        try:
            outcome = run_program(program, backends, workdir)
        except Disagreement as exc:
            regression = known(exc.backend, program.source, str(exc))
            if regression is None:
                fail(program, exc)
                raise
            if not counts["failed"]:
                counts["programs"] += 1
                key = f"known open: {regression.name} on {exc.backend}"
                counts[key] += 1
                examples.setdefault(
                    key,
                    {"program": program.source, "args": program.args_source, "message": str(exc)},
                )
            return
        except Exception as exc:
            fail(program, exc)
            raise
        if not counts["failed"]:
            counts["programs"] += 1
            counts.update(f"{backend} {ran}" for backend, ran in outcome.items())
        else:
            counts["shrink steps"] += 1

    def fail(program: Program, exc: Exception) -> None:
        failure.update(
            program=program.source,
            args=program.args_source,
            backend=getattr(exc, "backend", "unknown"),
            message=f"{type(exc).__name__}: {exc}",
        )
        counts["shrink steps" if counts["failed"] else "programs"] += 1
        counts["failed"] = 1

    try:
        fuzz()
    except Exception:  # the shrunk failure, replayed last: ``failure`` holds it
        pass
    return {"counts": dict(counts), "failure": failure or None, "examples": examples}


def signature(failure: dict) -> str:
    """What tells failures apart: the backend and the message without its values."""
    first = failure["message"].splitlines()[0]
    first = re.sub(r"^\w+: \[[^]]*\] \[[^]]*\] ", "", first)
    first = re.split(r" \(got | \(value |: array|: \(|, expected", first)[0]
    if first.endswith("printed output differs"):  # and where: the first word that differs
        outputs = [
            ast.literal_eval(line.split(": ", 1)[1])
            for line in failure["message"].splitlines()[1:3]
        ]
        pairs = zip(*(output.split() for output in outputs))
        differ = next(((a, b) for a, b in pairs if a != b), ("(more)", "(less)"))
        first += ": {} vs {}".format(*differ)
    return f"{failure['backend']}: {re.sub(r'[0-9]+', '#', first)[:160]}"


def save(failure: dict, kind: str, directory: Path) -> Path:
    """Write a failing program to regressions/, with its arguments and backend."""
    from fuzz_programs import Program

    program = Program(failure["program"], failure["args"])
    name = f"{kind}_{failure['backend']}_{zlib.crc32(program.source.encode()):08x}.py"
    lines = failure["message"].replace("\\", "\\\\").replace('"""', "'''").splitlines()
    message = "\n".join(line[:200] for line in lines[:20])
    doc = f"Fuzzer regression ({kind} on {failure['backend']}).\n\n{message}\n"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("# ruff: noqa\n" + program.regression_text(doc, failure["backends"]))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="programs to run")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--batch", type=int, default=100, help="programs per worker process")
    parser.add_argument("--out", type=Path, default=REGRESSIONS, help="where failures go")
    parser.add_argument(
        "--worker", nargs=3, metavar=("SEED", "COUNT", "STATUS"), help=argparse.SUPPRESS
    )
    options = parser.parse_args()
    if options.worker:
        seed, count, status = options.worker
        print(json.dumps(worker(int(seed), int(count), Path(status))))
        return

    env = dict(
        os.environ,
        NUMBA_ENABLE_CUDASIM=os.environ.get("NUMBA_ENABLE_CUDASIM", "1"),
        NBGRAPH_CACHE_DIR=tempfile.mkdtemp(prefix="nbgraph-fuzz-cache-"),
    )
    statusdir = Path(tempfile.mkdtemp(prefix="nbgraph-fuzz-status-"))
    totals: Counter = Counter()
    examples: dict[str, dict] = {}
    seen: set[str] = set()
    saved: list[str] = []
    running: dict[subprocess.Popen, tuple[Path, int]] = {}
    seeds = iter(range(options.seed, options.seed + 10**9))
    start = time.time()
    print(f"fuzzing {options.n} programs, seed {options.seed}, {options.jobs} workers")

    def record(failure: dict, kind: str) -> None:
        key = signature(failure)
        totals["failures"] += 1
        if key not in seen:
            seen.add(key)
            path = save(failure, kind, options.out)
            saved.append(f"{path}  {key}")
            print(f"  FAILURE {key}\n    saved as {path.name}", flush=True)

    while totals["programs"] + sum(c for _, c in running.values()) < options.n or running:
        planned = totals["programs"] + sum(c for _, c in running.values())
        while len(running) < options.jobs and planned < options.n:
            count = min(options.batch, options.n - planned)
            status = statusdir / f"{next(seeds)}.json"
            status.write_text("{}")
            command = [sys.executable, __file__, "--worker", status.stem, str(count), str(status)]
            running[
                subprocess.Popen(
                    command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
                )
            ] = (status, count)
            planned += count
        time.sleep(0.5)
        for process, (status, _) in list(running.items()):
            stalled = time.time() - status.stat().st_mtime > HANG_SECONDS
            if process.poll() is None and not stalled:
                continue
            del running[process]
            if stalled and process.poll() is None:
                process.kill()
            output = process.communicate()[0].strip().splitlines()
            current = json.loads(status.read_text() or "{}")
            if process.returncode == 0 and output:
                result = json.loads(output[-1])
                totals.update(result["counts"])
                for key, example in result["examples"].items():
                    examples.setdefault(key, example)
                if result["failure"]:
                    record({**result["failure"], "backends": current["backends"]}, "failure")
            elif current:
                kind = "hang" if stalled else "crash"
                totals.update(current["counts"])
                totals["programs"] += 1
                record(
                    {
                        "program": current["program"],
                        "args": current["args"],
                        "backends": current["backends"],
                        "backend": "unknown",
                        "message": f"{kind} (exit status {process.returncode})",
                    },
                    kind,
                )
            done = totals["programs"]
            rate = done / (time.time() - start)
            print(
                f"  {done} programs, {totals['failures']} failing, {rate:.2f} programs/s",
                flush=True,
            )

    elapsed = time.time() - start
    print(
        f"\n{totals['programs']} programs in {elapsed:.0f} s "
        f"({totals['programs'] / elapsed:.2f} programs/s, {options.jobs} workers)"
    )
    for backend in ("interpret", "cpu", "cuda"):
        results = {k.split(" ", 1)[1]: v for k, v in totals.items() if k.startswith(backend + " ")}
        print(f"  {backend:9}  " + ", ".join(f"{v} {k}" for k, v in sorted(results.items())))
    known_open = sorted((k, v) for k, v in totals.items() if k.startswith("known open: "))
    print(f"  known open outcomes: {sum(v for _, v in known_open)}")
    folder = Path(tempfile.mkdtemp(prefix="nbgraph-fuzz-known-"))
    for k, (key, count) in enumerate(known_open):
        print(f"    {count:5}  {key.removeprefix('known open: ')}")
        example = examples[key]
        (folder / f"{k}.py").write_text(
            f'"""{key}\n\n{example["message"][:2000]}\n"""\n\n'
            f"{example['program']}\n\nARGS = {example['args']}\n"
        )
    if known_open:
        print(f"  one program of each known open outcome: {folder}")
    print(f"  new failing programs: {totals['failures']} ({totals['shrink steps']} shrink steps)")
    for line in saved:
        print(f"    {line}")
    sys.exit(1 if saved else 0)


if __name__ == "__main__":
    main()
