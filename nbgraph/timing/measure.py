"""Timing one callable the way %timeit does: loops per round chosen automatically so a
round lasts about 0.2 s, several rounds, statistics over the per-call times."""

from __future__ import annotations

import statistics
import timeit
from collections.abc import Callable
from dataclasses import dataclass

ROUND_SECONDS = 0.2


@dataclass
class Timing:
    """Per-call seconds of each round (``loops`` calls per round)."""

    loops: int
    rounds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.rounds)

    @property
    def quartiles(self) -> tuple[float, float]:
        if len(self.rounds) < 2:
            return self.rounds[0], self.rounds[0]
        q1, _, q3 = statistics.quantiles(self.rounds, n=4, method="inclusive")
        return q1, q3

    @property
    def iqr(self) -> float:
        q1, q3 = self.quartiles
        return q3 - q1

    @property
    def unstable(self) -> bool:
        """Whether rounds spread so much that the median is doubtful (a busy machine)."""
        return self.iqr > 0.25 * self.median or max(self.rounds) > 3 * min(self.rounds)

    def as_dict(self) -> dict:
        return {
            "loops": self.loops,
            "rounds": len(self.rounds),
            "per_call_s": self.rounds,
            "median_s": self.median,
            "iqr_s": self.iqr,
            "min_s": min(self.rounds),
            "max_s": max(self.rounds),
            "unstable": self.unstable,
        }


def loops_for(fn: Callable[[], object]) -> int:
    """How many calls make a round of about ``ROUND_SECONDS`` (1, 2, 5, 10, 20, ...)."""
    loops, _ = timeit.Timer(fn).autorange()
    return loops


def time_interleaved(fns: list[Callable[[], object]], rounds: int) -> list[Timing]:
    """Time the callables round by round in turn, so a slow spell of a shared machine
    hits them alike."""
    timers = [timeit.Timer(fn) for fn in fns]
    loops = [loops_for(fn) for fn in fns]
    per_call: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for timer, n, out in zip(timers, loops, per_call):
            out.append(timer.timeit(n) / n)
    return [Timing(n, out) for n, out in zip(loops, per_call)]
