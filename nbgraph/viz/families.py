"""Op families: the graph view colors each node by the kind of work it does."""

from __future__ import annotations

from ..graph.functions import is_effect, is_elementwise
from ..graph.ir import Node, Op
from ..graph.numpy_facts import AXIS_FUNCTIONS, REDUCTION, SCAN, method_name

# family -> (fill color, what the legend says)
FAMILIES: dict[str, tuple[str, str]] = {
    "param": ("#dbeafe", "argument / loop variable"),
    "const": ("#f3f4f6", "constant"),
    "elementwise": ("#dcfce7", "elementwise"),
    "reduction": ("#fce7f3", "reduction"),
    "indexing": ("#ffedd5", "indexing / shape / list"),
    "linalg": ("#e0e7ff", "linear algebra"),
    "control": ("#ede9fe", "cond / while"),
    "effect": ("#fef3c7", "print / assert / raise"),
    "other": ("#ffffff", "other"),
}

# Reductions and scans (cumsum) in everyday use, by name.
_REDUCTIONS = frozenset(
    name for name, f in AXIS_FUNCTIONS.items() if f.kind in (REDUCTION, SCAN) and f.common
)
_BY_NAME = {
    "reduction": _REDUCTIONS,
    "linalg": {
        "@",
        "dot",
        "matmul",
        "vdot",
        "inner",
        "outer",
        "einsum",
        "tensordot",
        "trace",
        "solve",
        "inv",
        "det",
        "norm",
        "eig",
        "eigh",
        "svd",
        "cholesky",
        "qr",
        "lstsq",
        "kron",
    },
    "indexing": {
        "getitem",
        "setitem",
        "reshape",
        "transpose",
        "squeeze",
        "expand_dims",
        "ravel",
        "flatten",
        "concatenate",
        "stack",
        "hstack",
        "vstack",
        "broadcast_to",
        "take",
        "repeat",
        "tile",
        "flip",
        "diagonal",
        "sort",
        "argsort",
        "shape_dim",
        "size",
        "list_new",
        "list_append",
        "list_getitem",
        "list_len",
        "list_to_array",
        "make_tuple",
        "nonzero",
    },
}


def family(node: Node) -> str:
    """The family of ``node`` (a key of ``FAMILIES``)."""
    if node.op is Op.PARAM:
        return "param"
    if node.op is Op.CONST:
        return "const"
    if node.op in (Op.COND, Op.WHILE):
        return "control"
    if node.op is not Op.CALL:
        return "other"
    fn = node.arg.fn
    if is_effect(fn):
        return "effect"
    name = method_name(node.arg) or node.label().removeprefix("np.")
    for kind, names in _BY_NAME.items():
        if name in names:
            return kind
    return "elementwise" if is_elementwise(fn) else "other"


def op_text(node: Node) -> str:
    """The op as the view names it: ``Node.label()``, array methods as ``.mean``."""
    method = method_name(node.arg) if node.op is Op.CALL else None
    return f".{method}" if method is not None else node.label()
