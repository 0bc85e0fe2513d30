"""The result of timing eager against graph mode, and how it reads: a plain-text table
(terminals, nbconvert) and an HTML table with a bar chart beside it (Jupyter)."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

from .agreement import Agreement
from .cold import ColdStarts
from .distributed import DistributedTiming
from .measure import Timing


@dataclass
class Comparison:
    """Eager vs graph timings of one call, with the check that the results agree."""

    label: str
    backend: str
    eager: Timing
    graph: Timing
    first_call: dict[str, float]  # convert, trace, compile, first_run (seconds)
    agreement: Agreement
    warnings: list[str] = field(default_factory=list)
    distributed: DistributedTiming | None = None  # the call on Dask arguments, if any
    cold: ColdStarts | None = None  # the first call in new processes, if measured

    @property
    def first_call_total(self) -> float:
        return sum(self.first_call.values())

    @property
    def first_call_cost(self) -> float:
        """What the first call costs a person: with an empty disk cache where measured
        (a new or edited function; where it ran on the interpreter, the second call's
        wait for the compile too), else as it was in this process."""
        if self.cold is not None and self.cold.empty_cache is not None:
            return self.cold.empty_cache + (self.cold.compile_wait or 0.0)
        return self.first_call_total

    @property
    def speedup(self) -> float | None:
        """Eager median / graph median; None when the results disagree."""
        if not self.agreement.agree:
            return None
        return self.eager.median / self.graph.median

    @property
    def break_even_calls(self) -> int | None:
        """Calls after which graph mode, its first call included, has saved time; None
        when it never does (not faster, or the results disagree)."""
        saved = self.eager.median - self.graph.median
        if self.speedup is None or saved <= 0:
            return None
        return max(1, int(-(-(self.first_call_cost - self.graph.median) // saved)))

    def as_dict(self) -> dict:
        """The raw numbers (seconds), as ``to_json`` writes them."""
        return {
            "call": self.label,
            "backend": self.backend,
            "eager": self.eager.as_dict(),
            "graph": self.graph.as_dict(),
            "graph_first_call_s": {**self.first_call, "total": self.first_call_total},
            "speedup": self.speedup,
            "break_even_calls": self.break_even_calls,
            "agreement": self.agreement.as_dict(),
            "warnings": self.warnings,
            "distributed": self.distributed.as_dict() if self.distributed else None,
            "graph_first_call_new_process": self.cold.as_dict() if self.cold else None,
        }

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.as_dict(), **kwargs)

    def __str__(self) -> str:
        return text_report(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))

    def _repr_html_(self) -> str:
        return html_report(self)


_STAGES = (
    ("convert", "convert"),
    ("trace", "trace"),
    ("compile", "compile"),
    ("first_run", "first run"),
)


def seconds(value: float) -> str:
    """A duration as %timeit writes it: 1.23 s, 45.6 ms, 7.89 µs, 12 ns."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


def _timing(t: Timing) -> str:
    return f"{seconds(t.median)} ± {seconds(t.iqr / 2)}"


def _first_call(c: Comparison) -> str:
    parts = [
        f"{label} {seconds(c.first_call[key])}" for key, label in _STAGES if key in c.first_call
    ]
    return f"{seconds(c.first_call_total)} ({', '.join(parts)})"


def _verdict(c: Comparison) -> tuple[str, str]:
    a = c.agreement
    agree = (
        f"yes (max abs diff {a.max_abs:.3g}, max rel diff {a.max_rel:.3g})"
        if a.agree
        else f"NO: {a.reason} (max abs diff {a.max_abs:.3g}, max rel {a.max_rel:.3g})"
    )
    if c.speedup is None:
        return "not reported: the results disagree", agree
    calls = c.break_even_calls
    even = (
        f"break-even after {calls} call{'s' if calls > 1 else ''}"
        if calls
        else "graph mode never catches up"
    )
    return f"{ratio(c.speedup)} ({even})", agree


def ratio(value: float) -> str:
    """A speedup as people write it: 1,060x, 38.2x, 3.81x, 0.52x."""
    if value >= 100:
        return f"{value:,.0f}x"
    return f"{value:.1f}x" if value >= 10 else f"{value:.2f}x"


def _rows(c: Comparison) -> list[tuple[str, str, str]]:
    speed, agree = _verdict(c)
    return [*_local_rows(c, speed, agree), *_distributed_rows(c)]


def _distributed_rows(c: Comparison) -> list[tuple[str, str, str]]:
    """The graph on the Dask arguments, beside the graph on one machine."""
    d = c.distributed
    if d is None:
        return []
    a = d.agreement
    return [
        ("on Dask: median ± IQR/2", "", f"{_timing(d.timing)} ({d.where})"),
        (
            "Dask vs one machine",
            "",
            f"{ratio(c.graph.median / d.timing.median)} the speed "
            f"of the single-machine graph; results agree: {'yes' if a.agree else 'NO'}",
        ),
    ]


def _local_rows(c: Comparison, speed: str, agree: str) -> list[tuple[str, str, str]]:
    return [
        ("median per call ± IQR/2", _timing(c.eager), _timing(c.graph)),
        (
            "rounds x loops",
            f"{len(c.eager.rounds)} x {c.eager.loops}",
            f"{len(c.graph.rounds)} x {c.graph.loops}",
        ),
        (
            "min / max",
            f"{seconds(min(c.eager.rounds))} / {seconds(max(c.eager.rounds))}",
            f"{seconds(min(c.graph.rounds))} / {seconds(max(c.graph.rounds))}",
        ),
        *_cold_rows(c),
        ("first call here", "", _first_call(c)),
        ("speedup", speed, ""),
        ("results agree", agree, ""),
    ]


def _cold_rows(c: Comparison) -> list[tuple[str, str, str]]:
    """The first call in new processes: nothing cached, then from the disk cache."""
    cold = c.cold
    if cold is None:
        return []
    if cold.reason is not None:
        return [("first call, new process", "", f"not measured: {cold.reason}")]
    compiled = "" if cold.compiled is None else f" ({cold.compiled} functions compiled)"
    if cold.compile_wait is None:
        return [
            ("first call, empty cache", "", f"{seconds(cold.empty_cache)}{compiled}"),
            ("first call, disk cache", "", seconds(cold.disk_cache)),
        ]
    return [
        ("first call, empty cache", "", f"{seconds(cold.empty_cache)} (on the interpreter)"),
        ("second call, compiling", "", f"{seconds(cold.compile_wait)}{compiled}"),
        ("first call, disk cache", "", seconds(cold.disk_cache)),
    ]


def text_report(c: Comparison) -> str:
    rows = [("", "eager", f"graph ({c.backend})"), *_rows(c)]
    widths = [max(len(r[i]) for r in rows if r[i + 1 if i < 2 else i]) for i in range(2)]
    lines = [f"compare {c.label}"]
    for name, eager, graph in rows:
        if graph or name in ("", "median per call ± IQR/2"):
            lines.append(f"  {name:<{widths[0]}}  {eager:<{widths[1]}}  {graph}".rstrip())
        else:
            lines.append(f"  {name:<{widths[0]}}  {eager}".rstrip())
    lines += [f"  warning: {w}" for w in c.warnings]
    return "\n".join(lines)


def html_report(c: Comparison) -> str:
    esc = html.escape
    cells = []
    for name, eager, graph in _rows(c):
        if graph or name.startswith("median") or name.startswith("rounds"):
            cells.append(f"<tr><th>{esc(name)}</th><td>{esc(eager)}</td><td>{esc(graph)}</td></tr>")
        else:
            cells.append(f"<tr><th>{esc(name)}</th><td colspan='2'>{esc(eager)}</td></tr>")
    warnings = "".join(f"<div style='color:#b45309'>⚠ {esc(w)}</div>" for w in c.warnings)
    return (
        "<div class='nbgraph-compare' "
        "style='display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start'>"
        f"<div><div><b>compare</b> <code>{esc(c.label)}</code></div>"
        "<table><tr><th></th><th>eager</th>"
        f"<th>graph ({esc(c.backend)})</th></tr>{''.join(cells)}</table>{warnings}</div>"
        f"<div style='min-width:0;max-width:100%'>{bar_chart(c)}</div></div>"
    )


def bar_chart(c: Comparison) -> str:
    """An SVG with one bar per variant: eager and graph medians (linear scale).  It
    scales down with its container (a viewBox, at most its natural width), so a narrow
    output area shows all of it, labels included."""
    bars = [
        ("eager", c.eager.median, "#94a3b8"),
        (f"graph ({c.backend})", c.graph.median, "#2563eb"),
    ]
    if c.distributed is not None:
        bars.append(("graph on Dask", c.distributed.timing.median, "#0d9488"))
    longest = max(v for _, v, _ in bars) or 1.0
    label = 8 + 7 * max(len(name) for name, _, _ in bars)  # 12 px text: ~7 px a character
    width, row, value_room = 220, 28, 80
    total, height = label + width + value_room, row * len(bars) + 8
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {total} {height}' "
        f"width='{total}' height='{height}' style='max-width:100%;height:auto' "
        "role='img' aria-label='median time per call'>"
    ]
    for i, (name, value, color) in enumerate(bars):
        y = 4 + i * row
        length = max(1.0, width * value / longest)
        parts.append(
            f"<text x='0' y='{y + 16}' font-size='12'>{html.escape(name)}</text>"
            f"<rect x='{label}' y='{y + 4}' width='{length:.1f}' height='16' "
            f"fill='{color}'/><text x='{label + 4 + length:.1f}' y='{y + 16}' "
            f"font-size='12'>{seconds(value)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)
