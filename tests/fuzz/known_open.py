"""The fuzzer's findings kept in regressions/: which are fixed, which are open, and how the
fuzzer recognises a program that fails the way an open one does.

A regression file defines ``f``, ``ARGS`` and ``BACKENDS``; an open one also ``XFAIL``
(backend -> what goes wrong) and ``SIGNATURE``: ``source``, a regular expression for the
operation (the program's source must contain it), ``kind``, the kind of difference (one of
``KINDS``), and optionally ``backends``, where the fuzzer looks for it (a failure every
backend shares shows on the first one checked, the interpret backend). A fuzzed program
whose failure has the backend, the operation and the kind of difference of an open
regression is counted under that regression's name; any other failure, in the same
operation or not, is a new finding.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REGRESSIONS = Path(__file__).resolve().parent / "regressions"


class KnownDisagreement(AssertionError):
    """A disagreement with eager that an open regression describes (the expected failure
    of its strict xfail; any other failure fails the test)."""


def _outputs(message: str) -> tuple[str, str] | None:
    """What eager and graph mode printed, from the harness's message."""
    lines = message.splitlines()
    eager = next((line for line in lines if line.startswith("eager: ")), None)
    graph = next((line for line in lines if line.startswith("graph: ")), None)
    if "printed output differs" not in message or eager is None or graph is None:
        return None
    try:
        return tuple(ast.literal_eval(line.split(": ", 1)[1]) for line in (eager, graph))
    except (ValueError, SyntaxError):
        return None


def _printed_words(message: str) -> tuple[str, str] | None:
    """The first pair of printed words that differ."""
    outputs = _outputs(message)
    if outputs is None:
        return None
    if outputs[0].startswith(outputs[1]) or outputs[1].startswith(outputs[0]):
        return ("(more)", "(less)")  # one stopped printing early
    pairs = zip(*(re.split(r"[\s\[\](),;|]+", out) for out in outputs))
    return next(((a, b) for a, b in pairs if a != b), ("(more)", "(less)"))


def _values(message: str) -> str:
    """The 'got ..., expected ...' part of a value difference."""
    match = re.search(r"values differ \(got (.*)", message)
    return match[1] if match else ""


def signed_zero(message: str) -> bool:
    """The outputs differ in the sign of a zero, or only in a sign (of an infinity or an
    angle made from a signed zero)."""
    words = _printed_words(message)
    if words is not None:
        a, b = (w.strip("-+") for w in words)
        return a == b and words[0] != words[1]
    values = _values(message)
    return bool(values) and bool(re.search(r"-0\.|-inf|\binf", values))


def array_as_scalar(message: str) -> bool:
    """Eager printed an array where graph mode printed a scalar."""
    outputs = _outputs(message)
    if outputs is None:
        return False
    pairs = zip(*(out.split() for out in outputs))
    first = next(((a, b) for a, b in pairs if a != b), None)
    return first is not None and first[0].startswith("[") and not first[1].startswith("[")


def argument_state(message: str) -> bool:
    """An argument array differs after the call."""
    return "after the call" in message


def internal_object(message: str) -> bool:
    """An internal object of nbgraph's is printed or returned."""
    return "<nbgraph." in message


def last_digits(message: str) -> bool:
    """Printed numbers that differ only in their last digits (or in a tiny imaginary
    part), or values beyond the harness's tolerance by a few units in the last place."""
    words = _printed_words(message)
    if words is None:
        return (
            "values differ" in message
            and "Max relative difference" in message
            and bool(
                re.search(r"Max relative difference[^:]*: [0-9.e-]+e-(0[5-9]|1[0-9])", message)
            )
        )
    try:
        a, b = (complex(w.replace("j", "j").strip("()")) for w in words)
    except ValueError:
        return False
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-300) or abs(a - b) < 1e-12


def floored(message: str) -> bool:
    """A floor division or remainder whose quotient is -0.0 where NumPy floors to -1.0."""
    text = _values(message) or " ".join(_printed_words(message) or ())
    return "-0." in text or "-1." in text


def integer_minimum(message: str) -> bool:
    """An integer dtype's minimum on one side of a value difference."""
    return bool(re.search(r"-2147483648|-9223372036854775808", _values(message)))


def result_type(message: str) -> bool:
    """The value is right but of another Python or NumPy type."""
    return bool(re.search(r"type \w+ != expected \w+", message)) or (
        (_printed_words(message) or ("", ""))[0] in ("True", "False")
    )


def error_order(message: str) -> bool:
    """An error comes earlier (before prints or another error) or is another one."""
    words = _printed_words(message)
    return words == ("(more)", "(less)") or bool(
        re.search(
            r"eager raised \w+, graph mode raised|graph mode raised \w+.*; eager (returned|"
            r"raised)|eager raised \w+.*; graph mode returned",
            message,
        )
    )


def refused(message: str) -> bool:
    """Graph mode refuses or falls back (an error eager does not raise, a warning)."""
    return bool(re.search(r"graph mode (raised|refused)|NbgraphPerformanceWarning", message))


def copy_warning(message: str) -> bool:
    """The compiled code copies an array on each write and warns."""
    return bool(re.search(r"NbgraphPerformanceWarning: .*copies", message))


def any_difference(message: str) -> bool:
    return True


def different_value(message: str) -> bool:
    """A value or printed output that differs (not a refusal or a warning)."""
    return not refused(message) and bool(re.search(r"values differ|output differs", message))


KINDS: dict[str, Callable[[str], bool]] = {
    "signed zero": signed_zero,
    "last digits": last_digits,
    "floored": floored,
    "integer minimum": integer_minimum,
    "argument state": argument_state,
    "internal object": internal_object,
    "array as scalar": array_as_scalar,
    "result type": result_type,
    "error order": error_order,
    "refused": refused,
    "different value": different_value,
    "copy warning": copy_warning,
    "any": any_difference,
}


@dataclass(frozen=True)
class Regression:
    """One file of regressions/."""

    path: Path
    summary: str  # the docstring's first line
    backends: tuple[str, ...]
    xfail: dict[str, str] = field(default_factory=dict)
    source: str = ""  # SIGNATURE: the operation, a regular expression
    kind: str = ""  # SIGNATURE: the kind of difference, a name in KINDS
    fuzz_backends: tuple[str, ...] = ()  # SIGNATURE: where the fuzzer counts it

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def open(self) -> bool:
        return bool(self.xfail)

    def matches(self, backend: str, program: str, message: str, fuzzing: bool = False) -> bool:
        """Whether a failure on ``backend`` of ``program`` is this open regression's."""
        backends = self.fuzz_backends if fuzzing and self.fuzz_backends else self.xfail
        return (
            backend in backends
            and bool(re.search(self.source, program))
            and KINDS[self.kind](message)
        )


def load(path: Path) -> Regression:
    """The regression a file describes (its constants, read without running it)."""
    tree = ast.parse(path.read_text())
    names = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in ("BACKENDS", "XFAIL", "SIGNATURE")
        ):
            names[node.targets[0].id] = ast.literal_eval(node.value)
    summary = (ast.get_docstring(tree) or path.stem).splitlines()[0]
    signature = names.get("SIGNATURE", {})
    regression = Regression(
        path,
        summary,
        tuple(names.get("BACKENDS", ("interpret", "cpu", "cuda"))),
        names.get("XFAIL", {}),
        signature.get("source", ""),
        signature.get("kind", ""),
        tuple(signature.get("backends", ())),
    )
    if regression.open and regression.kind not in KINDS:
        raise ValueError(
            f"{path.name}: an open regression needs SIGNATURE = "
            f"{{'source': ..., 'kind': one of {sorted(KINDS)}}}"
        )
    return regression


def regressions(directory: Path = REGRESSIONS) -> list[Regression]:
    """Every regression file, by name."""
    return [load(path) for path in sorted(directory.glob("*.py"))]


def open_regressions(directory: Path = REGRESSIONS) -> list[Regression]:
    return [r for r in regressions(directory) if r.open]


def known(
    backend: str, program: str, message: str, directory: Path = REGRESSIONS
) -> Regression | None:
    """The open regression a failure is an instance of, or None for a new finding."""
    return next(
        (
            r
            for r in open_regressions(directory)
            if r.matches(backend, program, message, fuzzing=True)
        ),
        None,
    )


def readme_line(regression: Regression) -> str:
    """How the README's list of open findings shows a regression."""
    return f"- `{regression.name}`: {regression.summary}"


if __name__ == "__main__":  # the README's list of open findings
    for regression in open_regressions():
        print(readme_line(regression))
