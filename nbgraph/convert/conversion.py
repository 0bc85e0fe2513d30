"""Convert a user function: parse, run the converters in order, compile, cache.

The converted function is compiled with the user's file name and line numbers, inside a
small factory that supplies ``ag__`` (the operators) and the original closure values.
"""

from __future__ import annotations

import ast
import types
import weakref
from collections.abc import Callable
from types import ModuleType

from ..errors.exceptions import ConversionError
from ..source.locations import Loc
from ..source.origins import register_code, register_machinery
from .analysis import all_names, declared_outside, walk_scope
from .context import Namer, is_generated
from .converters.asserts import AssertConverter
from .converters.breaks import BreakConverter
from .converters.call_trees import CallConverter
from .converters.comprehensions import ComprehensionConverter
from .converters.continues import ContinueConverter
from .converters.control_flow import ControlFlowConverter
from .converters.deletes import DeleteConverter
from .converters.fstrings import FStringConverter
from .converters.lists import ListConverter
from .converters.locals_init import LocalsInitConverter
from .converters.logical import LogicalConverter
from .converters.outer_writes import OuterWriteConverter
from .converters.raises import RaiseConverter
from .converters.returns import ReturnConverter
from .converters.subscripts import SubscriptConverter
from .converters.try_blocks import TryConverter
from .converters.while_tests import WhileTestConverter
from .converters.with_blocks import WithConverter
from .parsing import parse_function

FACTORY = "__nbgraph_factory"
CONVERTED = "__nbgraph_converted"

_converted: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_sources: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _as_function_def(node: ast.FunctionDef | ast.Lambda) -> ast.FunctionDef:
    if isinstance(node, ast.FunctionDef):
        return node
    fn = ast.FunctionDef(
        name="lambda_",
        args=node.args,
        decorator_list=[],
        returns=None,
        body=[ast.Return(value=node.body)],
        type_params=[],
    )
    for child in (fn, fn.body[0]):
        ast.copy_location(child, node)
    return fn


def _check_supported(fn: Callable, node: ast.FunctionDef) -> None:
    """Refuse a generator: ``fn``, or a function defined in it (conversion would make it
    a function that returns None)."""
    defs = [d for d in ast.walk(node) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope in defs:
        inner = next(
            (n for n in walk_scope(scope.body) if isinstance(n, (ast.Yield, ast.YieldFrom))),
            None,
        )
        if inner is not None:
            name = fn.__name__ if scope is node else f"{scope.name} (defined in {fn.__name__})"
            raise ConversionError(
                f"{name} is a generator (it uses yield); graph mode cannot express "
                "generators. Build a list or an array instead.",
                Loc(
                    fn.__code__.co_filename,
                    inner.lineno,
                    inner.col_offset,
                    inner.end_col_offset,
                    fn.__qualname__,
                    function_line=fn.__code__.co_firstlineno,
                ),
            )


def convert_ast(fn: Callable) -> tuple[ast.FunctionDef, Namer]:
    """The converted definition of fn (not compiled), and the namer that named what
    conversion added."""
    node = _as_function_def(parse_function(fn))
    _check_supported(fn, node)
    node.decorator_list = []
    node.args.defaults = [ast.Constant(value=None) for _ in node.args.defaults]
    node.args.kw_defaults = [
        None if d is None else ast.Constant(value=None) for d in node.args.kw_defaults
    ]
    namer = Namer(all_names(node) | {"ag__", FACTORY, CONVERTED})
    pipeline = [
        WhileTestConverter(namer),
        WithConverter(namer),
        ListConverter(namer),
        SubscriptConverter(namer),
        DeleteConverter(namer),
        OuterWriteConverter(namer),
        AssertConverter(namer),
        RaiseConverter(namer),
        TryConverter(namer),
        ContinueConverter(namer),
        BreakConverter(namer),
        ReturnConverter(namer),
        ControlFlowConverter(namer, declared_outside(node)),
        LogicalConverter(namer),
        ComprehensionConverter(namer),
        FStringConverter(namer),
        CallConverter(namer),
        LocalsInitConverter(namer),
    ]
    for converter in pipeline:
        node = converter.visit(node)
    ast.fix_missing_locations(node)
    return node, namer


_runtime: list[ModuleType] = []  # the module converted code calls as ``ag__``


def use_runtime(module: ModuleType) -> None:
    """Name the module converted code calls as ``ag__`` (``operators``, which registers
    itself when imported: it stages calls by converting functions with this module)."""
    _runtime[:] = [module]


def convert(fn: Callable) -> Callable:
    """The converted version of a user function (cached per function object)."""
    cached = _converted.get(fn)
    if cached is not None:
        return cached
    node, namer = convert_ast(fn)
    source = ast.unparse(node)
    # Bound under another name in the factory, so a call of the function by its own name
    # reaches the original (and the recursion check), not the converted code directly.
    node.name = CONVERTED
    code = fn.__code__
    factory = ast.FunctionDef(
        name=FACTORY,
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=a) for a in ("ag__", *code.co_freevars)],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
        decorator_list=[],
        returns=None,
        type_params=[],
    )
    ast.copy_location(factory, node)
    ast.fix_missing_locations(factory)
    generated = {
        n.name for n in ast.walk(node) if isinstance(n, ast.FunctionDef) and is_generated(n)
    } | {"<lambda>"}
    module_code = compile(ast.Module(body=[factory], type_ignores=[]), code.co_filename, "exec")
    register_machinery(module_code)  # the factory: nbgraph's code under the user's name
    namespace: dict = {}
    exec(module_code, fn.__globals__, namespace)
    made = namespace[FACTORY](_runtime[0], *(None for _ in code.co_freevars))
    converted = types.FunctionType(
        _named_as_user(
            made.__code__.replace(co_name=fn.__name__, co_qualname=fn.__qualname__), generated, fn
        ),
        fn.__globals__,
        fn.__name__,
        None,
        _shared_closure(made, fn),
    )
    register_code(converted.__code__, frozenset(namer.generated))
    converted.__defaults__ = fn.__defaults__
    converted.__kwdefaults__ = fn.__kwdefaults__
    converted.__doc__ = fn.__doc__
    converted.__name__, converted.__qualname__ = fn.__name__, fn.__qualname__
    _converted[fn] = converted
    _sources[fn] = source
    return converted


def forget(fn: Callable) -> None:
    """Drop fn's converted version, so the next ``convert`` does the whole work again
    (timings of a first call measure it)."""
    _converted.pop(fn, None)
    _sources.pop(fn, None)


def _named_as_user(code: types.CodeType, generated: set[str], fn: Callable) -> types.CodeType:
    """``code`` with the generated functions in it (branch and loop bodies) named after
    the user's function they belong to, so every frame of converted code reads
    "in <function>" (a def of the user's inside names the bodies within it)."""
    return _renamed(code, generated, fn.__name__, fn.__qualname__)


def _renamed(code: types.CodeType, generated: set[str], name: str, qualname: str) -> types.CodeType:
    if code.co_name in generated:
        code = code.replace(co_name=name, co_qualname=qualname)
    else:  # the user's function (or a def of theirs): its bodies take its name
        name, qualname = code.co_name, code.co_qualname
    consts = tuple(
        _renamed(c, generated, name, qualname) if isinstance(c, types.CodeType) else c
        for c in code.co_consts
    )
    return code.replace(co_consts=consts)


def _shared_closure(made: Callable, fn: Callable) -> tuple:
    """The converted function's closure: ``ag__``'s cell, and fn's own cells for the
    variables fn reads from enclosing functions, so it sees them change, as fn does."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    return tuple(
        cells.get(name, cell)
        for name, cell in zip(made.__code__.co_freevars, made.__closure__ or ())
    )


def to_code(fn: Callable) -> str:
    """The converted source of fn, as readable Python."""
    fn = getattr(fn, "python_function", fn)
    convert(fn)
    return _sources[fn]
