"""A readable text dump of a graph (``str(graph)``), one node per line."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .functions import is_effect
from .ir import Graph, Node, Op, Region
from .scaffolding import Scaffolding, scaffolding
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


def format_graph(graph: Graph, everything: bool = False) -> str:
    """The listing of ``graph``: one line per node, each nested region indented under
    its cond or while.  What conversion added (``scaffolding.py``: the flags of break,
    continue and return and of Python types, the effect token) is left out unless
    ``everything``; a loop's line then says how it exits early (``exits: break``), an
    if's which flag it sets (``continue``), and a branch skipping the rest of a body
    once one is set says so (``cond(unless break)``)."""
    return _Listing(graph, Scaffolding() if everything else scaffolding(graph)).text()


class _Listing:
    def __init__(self, graph: Graph, hidden: Scaffolding) -> None:
        self.graph, self.hidden = graph, hidden
        self.names = node_names(graph)
        self.variables = assigned_variables(graph)
        self.params = param_names(graph)
        self.lines = [f"graph {graph.name}"]

    def text(self) -> str:
        self.region(self.graph.body, "  ", None)
        return "\n".join(self.lines)

    def name(self, node: Node) -> str:
        shown = self.hidden.shown(node)
        return "_" if shown is None else self.names[shown]

    def listed(self, values: Sequence[Node]) -> str:
        return ", ".join(self.name(v) for v in values if self.hidden.shown(v) is not None)

    def region(self, r: Region, indent: str, owner: Node | None) -> None:
        params = [p for p in r.params if p not in self.hidden.hidden]
        if params:
            named = [
                f"{self.names[p]} ({self.params[p]})" if p in self.params else self.names[p]
                for p in params
            ]
            self.lines.append(f"{indent}params {', '.join(named)}")
        for node in r.nodes:
            if node in self.hidden.hidden:
                continue
            self.lines.append(f"{indent}{self.node(node)}")
            for sub_name, sub in zip(_region_names(node), node.regions()):
                self.lines.append(f"{indent}  {sub_name}:")
                self.region(sub, indent + "    ", node)
        self.lines.append(f"{indent}results {self.listed(self.hidden.results(r, owner))}")

    def node(self, node: Node) -> str:
        """A node's line: ``%7 (members) = call getitem(%3, %6) : ...  # line 8``."""
        hidden, names = self.hidden, self.names
        where = ""
        if node.loc:
            where = f"  # {'gradient of ' if node.loc.gradient else ''}line {node.loc.lineno}"
        text = format_node(node, self.name)
        if hidden.hidden:  # (what is left out is left out of operands and types too)
            if node.op is Op.CALL and is_effect(node.arg.fn):
                text = text.replace("(_, ", "(", 1).replace("(_)", "()", 1)  # (the token)
            if node.op is Op.PROJ and node.inputs[0].regions():  # numbered among those listed
                made_by = node.inputs[0]
                index = hidden.kept(made_by).index(node.arg)
                text = f"{names[node]} = proj[{index}]({names[made_by]}) : {node.type}"
            if node.regions():
                operands = (
                    f"unless {hidden.guards[node]}"
                    if node in hidden.guards
                    else self.listed(node.inputs)
                )
                text = f"{names[node]} = {node.op.value}({operands}) : {hidden.type_of(node)}"
                if hidden.exits(node) and node not in hidden.guards:
                    exits = ", ".join(hidden.exits(node))
                    where += f", exits: {exits}" if node.op is Op.WHILE else f", {exits}"
        if node in self.variables:  # `%7 (members) = call getitem(...)`
            text = text.replace(" = ", f" ({self.variables[node]}) = ", 1)
        return text + where


def zip_names(region: Region) -> list[tuple[Node, str | None]]:
    """A region's params with the user's variable of each (None where unknown)."""
    names = list(region.names)
    return [(p, names[k] if k < len(names) else None) for k, p in enumerate(region.params)]


def param_names(graph: Graph) -> dict[Node, str]:
    """The user's variable of each param that has one: the function's arguments, and
    each loop's variables (a loop's test and body take the same ones, named in the
    body; a ``for`` loop's target where it is the loop's index)."""
    found = {p: name for p, name in zip_names(graph.body) if name}
    for loop in graph.find(Op.WHILE):
        test, body = loop.arg
        targets = {node: name for name, node in body.variables if node.op is Op.PARAM}
        for k, (param, name) in enumerate(zip_names(body)):
            name = name or targets.get(param)
            if name:
                found[param] = found[test.params[k]] = name
    return found


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
