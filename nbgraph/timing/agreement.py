"""Do the eager and graph results agree?  Compared leaf by leaf (tuples, lists, dicts
of arrays and numbers), with the largest absolute and relative differences."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph.pytree import flatten, tree_key


@dataclass
class Agreement:
    """Whether results agree within ``rtol``; the largest differences seen."""

    agree: bool
    max_abs: float
    max_rel: float
    reason: str = ""

    def as_dict(self) -> dict:
        return {
            "agree": self.agree,
            "max_abs_diff": self.max_abs,
            "max_rel_diff": self.max_rel,
            "reason": self.reason,
        }


def agreement(eager: Any, graph: Any, rtol: float = 1e-7) -> Agreement:
    """Compare two results; structures must match, values within ``rtol`` (NaN = NaN)."""
    eager_leaves, eager_tree = flatten(eager)
    graph_leaves, graph_tree = flatten(graph)
    if tree_key(eager_tree) != tree_key(graph_tree) or len(eager_leaves) != len(graph_leaves):
        return Agreement(False, np.inf, np.inf, "the results have different structures")
    max_abs = max_rel = 0.0
    for a, b in zip(eager_leaves, graph_leaves):
        try:
            x, y = np.asarray(a), np.asarray(b)
        except Exception:
            return Agreement(False, np.inf, np.inf, f"cannot compare {type(a).__name__}")
        if x.shape != y.shape:
            return Agreement(False, np.inf, np.inf, f"shapes differ: {x.shape} vs {y.shape}")
        if x.dtype.kind not in "biufc" or y.dtype.kind not in "biufc":
            if not np.array_equal(x, y):
                return Agreement(False, np.inf, np.inf, "values differ")
            continue
        if x.size == 0:
            continue
        with np.errstate(invalid="ignore"):  # inf - inf: handled below
            diff = np.abs(x.astype(np.complex128) - y.astype(np.complex128))
        both_nan = np.isnan(x) & np.isnan(y)
        same_inf = np.isinf(x) & (x == y)
        # NaN against a number, or inf against -inf, differ infinitely.
        diff = np.where(both_nan | same_inf, 0.0, np.where(np.isnan(diff), np.inf, diff))
        scale = np.abs(x.astype(np.complex128))
        rel = np.divide(
            diff, scale, out=np.where(diff > 0, np.inf, 0.0), where=(scale > 0) & np.isfinite(scale)
        )
        rel = np.where(np.isinf(diff), np.inf, rel)
        max_abs = max(max_abs, float(np.max(diff)))
        max_rel = max(max_rel, float(np.max(rel)))
    return Agreement(
        max_rel <= rtol,
        max_abs,
        max_rel,
        "" if max_rel <= rtol else f"relative difference above {rtol:g}",
    )
