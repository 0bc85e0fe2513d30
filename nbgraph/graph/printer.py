"""A readable text dump of a graph (``str(graph)``), one node per line."""

from __future__ import annotations

from collections.abc import Callable

from .ir import Graph, Node, Op, Region
from .template import fill
from .variables import assigned_variables


def node_names(graph: Graph) -> dict[Node, str]:
    """Each node's name in the listing (``%0``, ``%1``, ... in schedule order)."""
    names: dict[Node, str] = {}

    def region(r: Region) -> None:
        for node in (*r.params, *r.nodes):
            names.setdefault(node, f"%{len(names)}")
            for sub in node.regions():
                region(sub)

    region(graph.body)
    return names


def format_graph(graph: Graph) -> str:
    names = node_names(graph)
    variables = assigned_variables(graph)
    lines = [f"graph {graph.name}"]
    name = names.__getitem__

    def region(r: Region, indent: str) -> None:
        if r.params:
            named = [f"{name(p)} ({n})" if n else name(p) for p, n in zip_names(r)]
            lines.append(f"{indent}params {', '.join(named)}")
        for node in r.nodes:
            where = (
                ""
                if not node.loc
                else f"  # {'gradient of ' if node.loc.gradient else ''}line {node.loc.lineno}"
            )
            text = format_node(node, name)
            if node in variables:  # `%7 (members) = call getitem(...)`
                text = text.replace(" = ", f" ({variables[node]}) = ", 1)
            lines.append(f"{indent}{text}{where}")
            for sub_name, sub in zip(_region_names(node), node.regions()):
                lines.append(f"{indent}  {sub_name}:")
                region(sub, indent + "    ")
        lines.append(f"{indent}results {', '.join(name(x) for x in r.results)}")

    region(graph.body, "  ")
    return "\n".join(lines)


def zip_names(region: Region) -> list[tuple[Node, str | None]]:
    """A region's params with the user's variable of each (None where unknown)."""
    names = list(region.names)
    return [(p, names[k] if k < len(names) else None) for k, p in enumerate(region.params)]


def _region_names(node: Node) -> tuple[str, ...]:
    return ("then", "else") if node.op is Op.COND else ("test", "body")


class _Named:
    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def format_node(node: Node, name: Callable[[Node], str]) -> str:
    """One node as the listing shows it: ``%3 = call add(%1, %2) : float64[1]``."""
    label = node.label() if node.op is not Op.CALL else f"call {node.label()}"
    return f"{name(node)} = {label}({_arguments(node, name)}) : {node.type}"


def show_argument(value: object) -> str:
    """An argument as code would name it (classes and functions by name)."""
    if isinstance(value, type) or (callable(value) and hasattr(value, "__qualname__")):
        return getattr(value, "__qualname__", repr(value))
    return repr(value)


def _arguments(node: Node, name: Callable[[Node], str]) -> str:
    """Inputs by name; a CALL shows its whole argument template."""
    if node.op is not Op.CALL:
        return ", ".join(name(i) for i in node.inputs)
    values = [_Named(name(i)) for i in node.inputs]
    call = node.arg
    parts = [show_argument(a) for a in fill(call.args, values)]
    parts += [f"{k}={show_argument(v)}" for k, v in fill(call.kwargs, values).items()]
    text = ", ".join(parts)
    return text if len(text) <= 80 else text[:77] + "..."
