"""The package's structure as the README's Architecture section describes it.

The layer contract itself is checked by import-linter in `make test` (`lint-imports`,
configured in pyproject.toml); these tests hold the README to that contract and check
what the contract cannot see: private names, imports placed inside functions, and what
``import nbgraph`` loads.
"""

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "nbgraph"

# Imports that may wait inside a function: what needs a GPU, Dask, JAX, or loads a
# compiler or the notebook machinery that ``import nbgraph`` must not pay for.
DEFERRED = {"numba", "cupy", "cuda", "dask", "distributed", "jax", "IPython"}  # cuda: bindings
# Modules whose own imports inside functions are of those kinds: the package's face
# loads the IPython extension on ``%load_ext``; the kernel's step magic is optional;
# CUDA device code compiles when imported, so only where a GPU program is made.
DEFERRING_MODULES = {
    "nbgraph",
    "nbgraph.kernel.extension",
    "nbgraph.backend.numba_cuda.elementwise",
}


def _modules() -> dict[str, ast.Module]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = ast.parse(path.read_text(), str(path))
    return out


def _target(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _package_of(module: str) -> str:
    return (
        module
        if (ROOT / module.replace(".", "/") / "__init__.py").exists()
        else module.rpartition(".")[0]
    )


def test_readme_lists_the_layers_of_the_contract():
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in contract["contracts"] if c["type"] == "layers"]
    expected = [sorted(re.split(r"\s*[|:]\s*", layer)) for layer in layers]
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Architecture", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    listed = []
    for line in block.splitlines():
        names = re.findall(r"(nbgraph/[\w/]*?)(?:\.py|/)(?=\s|,|$)", line)
        if names and line.startswith("nbgraph/"):
            listed.append(sorted(n.rstrip("/").replace("/", ".") for n in names))
    assert listed == expected


def test_importing_nbgraph_loads_no_compiler_or_notebook_machinery():
    heavy = sorted(DEFERRED | {"llvmlite", "anywidget", "graphviz"})
    code = f"import sys, nbgraph; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_module_imports_a_private_name_of_another_package():
    found = []
    for module, tree in _modules().items():
        is_package = (ROOT / module.replace(".", "/") / "__init__.py").exists()
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = _target(module, node, is_package)
            if not target.startswith("nbgraph"):
                continue
            private = [
                a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")
            ]
            if private and _package_of(target) != _package_of(module):
                found.append(f"{module} imports {private} from {target}")
    assert not found


def test_imports_inside_functions_are_only_deferred_dependencies():
    found = []
    for module, tree in _modules().items():
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = ["." * node.level + (node.module or "")]
                else:
                    continue
                for name in names:
                    if name.split(".")[0] in DEFERRED:
                        continue
                    if name.startswith(".") and module in DEFERRING_MODULES:
                        continue
                    found.append(f"{module}:{node.lineno} imports {name}")
    assert not found
