"""What the recorder knows about a code object before running it.

Per line: the names its instructions bind or unbind (from the bytecode), whether it may
change objects in place (it calls something, or assigns an item or attribute), and the
names whose items or attributes it assigns (``a[i] = v``: ``a`` changed even where the
checksum of a large array samples past ``i``). Per loop (from the source): its lines,
the line whose event starts an iteration, which line writes which name, whether it
calls anything, and its iterable. With these the recorder reads a frame's variables
only when something may have changed that it cannot attribute otherwise, and follows
long loops without making a step per line (see ``fast``).
"""

from __future__ import annotations

import ast
import dis
import linecache
import types
from collections import defaultdict
from dataclasses import dataclass

# Instructions after which any object reachable from the frame may have changed.
_CALLING = frozenset(
    {
        "CALL",
        "CALL_FUNCTION",
        "CALL_FUNCTION_KW",
        "CALL_FUNCTION_EX",
        "CALL_METHOD",
        "CALL_KW",
        "IMPORT_NAME",
        "IMPORT_STAR",
        "YIELD_VALUE",
        "SEND",
        "BEFORE_WITH",
        "BEFORE_ASYNC_WITH",
    }
)
# Instructions assigning an item or attribute: the object assigned into changed.
_STORING = frozenset(
    {"STORE_SUBSCR", "DELETE_SUBSCR", "STORE_SLICE", "DELETE_SLICE", "STORE_ATTR", "DELETE_ATTR"}
)
# How a line may change objects in place (Line.mutating).
UNCHANGED, ITEMS, ANYTHING = 0, 1, 2
_BINDING = frozenset(
    {
        "STORE_FAST",
        "DELETE_FAST",
        "STORE_NAME",
        "DELETE_NAME",
        "STORE_GLOBAL",
        "DELETE_GLOBAL",
        "STORE_DEREF",
        "DELETE_DEREF",
        "STORE_FAST_MAYBE_NULL",
    }
)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@dataclass(frozen=True, eq=False)
class Loop:
    """A ``for`` or ``while`` statement of one code object."""

    header: int  # the line of the statement
    boundary: int  # the line whose event starts each iteration
    last: int  # the last line of its body (its ``else:`` is not part of the loop)
    # Line of the loop -> the names it binds, or whose items or attributes it assigns.
    writes: dict[int, frozenset[str]]
    assigned_into: frozenset[str]  # the names whose items or attributes it assigns
    # Whether iterations can be followed without reading variables at every line: no
    # loop inside, and no iteration can write a name on two lines.
    flat: bool
    calls: bool  # every iteration calls something (which may change objects in place)
    in_place: frozenset[str]  # names updated with `x += ...` (in place, for arrays)
    iterable: ast.expr | None  # a `for` loop's iterable
    first_body_line: int  # the line of the first statement of its body

    def contains(self, lineno: int) -> bool:
        return self.header <= lineno <= self.last


@dataclass(frozen=True)
class Line:
    """One source line of a code object, as the recorder needs it."""

    binds: frozenset[str] = frozenset()  # names bound or deleted by its instructions
    # UNCHANGED; ITEMS: assigns items or attributes of the objects named in
    # ``item_stores`` only; ANYTHING: calls something (or assigns into other objects).
    mutating: int = UNCHANGED
    item_stores: frozenset[str] = frozenset()  # names whose items/attributes it assigns
    loop: Loop | None = None  # the loop an event at this line starts an iteration of


NO_LINE = Line()


@dataclass(frozen=True)
class CodeInfo:
    """The lines of a code object that matter to the recorder (the others: NO_LINE)."""

    lines: dict[int, Line]
    module_level: bool  # variables live in the globals (a cell's or module's code)


def code_info(code: types.CodeType, source: str | None = None) -> CodeInfo:
    """The static facts about ``code``; ``source`` is the text of its file when
    linecache does not hold it as valid Python (a cell magic's cell)."""
    binds: dict[int, set[str]] = defaultdict(set)
    calling: set[int] = set()
    storing: set[int] = set()
    lineno = code.co_firstlineno
    for instruction in dis.get_instructions(code):
        lineno = _line_of(instruction, lineno)
        if instruction.opname in _BINDING:
            binds[lineno].add(instruction.argval)
        elif instruction.opname in _CALLING:
            calling.add(lineno)
        elif instruction.opname in _STORING:
            storing.add(lineno)
    scope = _scope_of(code, source)
    item_stores = _item_stores(scope) if scope is not None else {}
    executable = {line for *_, line in code.co_lines() if line is not None}
    loops = _loops(scope, executable, binds, item_stores, storing) if scope is not None else []
    starts = {loop.boundary: loop for loop in loops}
    # A `for` statement's iterable is made once, when the loop starts (the recorder
    # reads everything then), not at the header's event of every iteration.
    calling -= {
        loop.header
        for loop in loops
        if loop.iterable is not None and loop.first_body_line > loop.header
    }

    def mutating(n: int) -> int:
        if n in calling or (n in storing and n not in item_stores):
            return ANYTHING
        return ITEMS if n in storing else UNCHANGED

    numbers = set(binds) | calling | storing | set(item_stores) | set(starts)
    lines = {
        n: Line(
            frozenset(binds.get(n, ())),
            mutating(n),
            frozenset(item_stores.get(n, ())),
            starts.get(n),
        )
        for n in numbers
    }
    return CodeInfo(lines, module_level=code.co_name == "<module>")


def _line_of(instruction: dis.Instruction, previous: int) -> int:
    positions = getattr(instruction, "positions", None)
    if positions is not None:
        return positions.lineno if positions.lineno is not None else previous
    return instruction.starts_line or previous  # Python 3.10


def _scope_of(code: types.CodeType, source: str | None) -> ast.AST | None:
    """The AST node of ``code``'s body: the module, or the def/class/lambda it was
    compiled from (None when the source is unavailable)."""
    tree = _parse(code.co_filename, source)
    if tree is None:
        return None
    if code.co_name == "<module>":
        return tree
    for node in ast.walk(tree):
        if (
            isinstance(node, _SCOPES)
            and _first_line(node) == code.co_firstlineno
            and getattr(node, "name", "<lambda>") == code.co_name
        ):
            return node
    return None


_trees: dict[tuple[str, str], ast.Module | None] = {}


def _parse(filename: str, source: str | None) -> ast.Module | None:
    text = source if source is not None else "".join(linecache.getlines(filename))
    key = (filename, text)
    if key not in _trees:
        try:
            _trees[key] = ast.parse(text) if text else None
        except (SyntaxError, ValueError):
            _trees[key] = None
    return _trees[key]


def _first_line(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _own_nodes(scope: ast.AST):
    """The nodes of ``scope`` outside its nested functions, classes and lambdas."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _loops(
    scope: ast.AST,
    executable: set[int],
    binds: dict[int, set[str]],
    item_stores: dict[int, set[str]],
    storing: set[int],
) -> list[Loop]:
    nodes = [
        node
        for node in _own_nodes(scope)
        if isinstance(node, ast.For | ast.AsyncFor | ast.While) and node.body
    ]
    spans = [
        (node.lineno, max(stmt.end_lineno or stmt.lineno for stmt in node.body)) for node in nodes
    ]
    loops = []
    for node, (header, last) in zip(nodes, spans):
        # `while True:` has no test to jump back to: iterations start at the body.
        endless = (
            isinstance(node, ast.While)
            and isinstance(node.test, ast.Constant)
            and bool(node.test.value)
        )
        lines = [n for n in executable if header <= n <= last]
        writes = {n: frozenset(binds.get(n, set()) | item_stores.get(n, set())) for n in lines}
        flat = (
            _writes_once(node, writes)
            and not any(header < h <= last for h, _ in spans)
            and not any(n in storing and n not in item_stores for n in lines)
        )
        # A `for` loop's iterable is made once: only the body and a `while` test repeat.
        repeated = [*node.body, *([node.test] if isinstance(node, ast.While) else [])]
        inner = [n for part in repeated for n in ast.walk(part)]
        calls = any(
            isinstance(
                n, ast.Call | ast.With | ast.AsyncWith | ast.Await | ast.Yield | ast.YieldFrom
            )
            for n in inner
        )
        in_place = frozenset(
            n.target.id
            for n in inner
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)
        )
        loops.append(
            Loop(
                header,
                node.body[0].lineno if endless else header,
                last,
                writes,
                frozenset(name for n in lines for name in item_stores.get(n, ())),
                flat,
                calls,
                in_place,
                getattr(node, "iter", None),
                node.body[0].lineno,
            )
        )
    return loops


def _writes_once(loop: ast.AST, writes: dict[int, frozenset[str]]) -> bool:
    """Whether no iteration of ``loop`` can run two lines writing the same name (lines
    in different branches of an ``if`` cannot both run)."""
    lines_of: dict[str, list[int]] = defaultdict(list)
    for lineno, names in writes.items():
        for name in names:
            lines_of[name].append(lineno)
    shared = [lines for lines in lines_of.values() if len(lines) > 1]
    if not shared:
        return True
    branches = _branches(loop)
    return all(
        _exclusive(branches.get(a, ()), branches.get(b, ()))
        for lines in shared
        for i, a in enumerate(lines)
        for b in lines[i + 1 :]
    )


def _branches(loop: ast.AST) -> dict[int, tuple[tuple[int, str], ...]]:
    """For each line of the loop's body: the ``if`` branches it lies in, outermost first,
    as (id of the if, "body" or "orelse")."""
    found: dict[int, tuple[tuple[int, str], ...]] = {}

    def visit(statements: list[ast.stmt], path: tuple[tuple[int, str], ...]) -> None:
        for statement in statements:
            for lineno in range(statement.lineno, (statement.end_lineno or statement.lineno) + 1):
                found[lineno] = path
            if isinstance(statement, ast.If):
                visit(statement.body, (*path, (id(statement), "body")))
                visit(statement.orelse, (*path, (id(statement), "orelse")))
            else:
                for name in ("body", "orelse", "handlers", "finalbody"):
                    visit(getattr(statement, name, []), path)

    visit(loop.body, ())
    return found


def _exclusive(a: tuple[tuple[int, str], ...], b: tuple[tuple[int, str], ...]) -> bool:
    branches = dict(a)
    return any(branches.get(node, arm) != arm for node, arm in b)


def _item_stores(scope: ast.AST) -> dict[int, set[str]]:
    found: dict[int, set[str]] = defaultdict(set)
    for node in _own_nodes(scope):
        if isinstance(node, ast.Subscript | ast.Attribute) and isinstance(
            node.ctx, ast.Store | ast.Del
        ):
            base = node.value
            while isinstance(base, ast.Subscript | ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name):
                found[node.lineno].add(base.id)
    return found
