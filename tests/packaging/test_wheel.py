"""The wheel as users get it: built from the sdist, installed with JupyterLab into a fresh
virtual environment without Node.js, where the extension is enabled and a notebook of
``%%autograph`` and the graph view runs in a kernel of that environment."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import nbformat
import pytest
from notebook_cells import printed

ROOT = Path(__file__).resolve().parents[2]
LABEXTENSION = "share/jupyter/labextensions/nbgraph-labextension"
NODE = {"node", "nodejs", "npm", "npx", "corepack", "yarn", "pnpm"}
SYSTEM_BIN = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
WIDGET = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

CELLS = [
    "import sys, nbgraph\nprint(sys.prefix)\nprint(nbgraph.__file__)",
    "%load_ext nbgraph",
    """\
%%autograph
def clipped_total(x, limit):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > limit:
            total += limit
        else:
            total += x[i]
    return total""",
    """\
import numpy as np
x = np.linspace(-1.0, 3.0, 9)
total = clipped_total(x, 2.0)
print(type(clipped_total).__name__, total, total == clipped_total.eager(x, 2.0))""",
    "clipped_total.graph(x, 2.0)",
]

# Runs in the fresh environment: nbclient there starts that environment's kernel.
EXECUTE = """\
import sys
import nbformat
from nbclient import NotebookClient

path = sys.argv[1]
notebook = nbformat.read(path, as_version=4)
resources = {"metadata": {"path": sys.argv[2]}}
NotebookClient(
    notebook, timeout=300, kernel_name="python3", allow_errors=True, resources=resources
).execute()
nbformat.write(notebook, path)
"""


def run(command: list[str | Path], env: dict[str, str], cwd: Path, hint: str = "") -> str:
    """Run a command, failing with its output (stdout and stderr together) if it fails."""
    result = subprocess.run(
        [str(c) for c in command],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert result.returncode == 0, (
        f"{' '.join(map(str, command))} failed ({result.returncode}){hint}:\n"
        f"{result.stdout[-6000:]}"
    )
    return result.stdout


def venv_env(venv: Path, env: dict[str, str]) -> dict[str, str]:
    """The environment activated: its programs first."""
    return {**env, "PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}", "VIRTUAL_ENV": str(venv)}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of the commands: the system's programs without Node.js (a
    folder of links to them), and no user Jupyter or IPython settings."""
    home = tmp_path_factory.mktemp("home")
    programs = home / "bin"
    programs.mkdir()
    for folder in map(Path, SYSTEM_BIN):
        for program in folder.iterdir() if folder.is_dir() else ():
            link = programs / program.name
            if program.name not in NODE and not link.is_symlink():
                link.symlink_to(program)
    assert shutil.which("node", path=str(programs)) is None
    kept = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PYTHON", "VIRTUAL_ENV", "JUPYTER", "IPYTHON", "CONDA"))
    }
    return {
        **kept,
        "PATH": str(programs),
        "JUPYTER_CONFIG_DIR": str(home / "jupyter-config"),
        "JUPYTER_DATA_DIR": str(home / "jupyter-data"),
        "IPYTHONDIR": str(home / "ipython"),
    }


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> tuple[Path, Path]:
    """The sdist and the wheel built from it, as `python -m build` does, outside the
    source tree.  Without build isolation, which would install JupyterLab twice (a
    minute): the test extras hold the build requirements, and `make setup`'s editable
    install already builds in isolation."""
    out = tmp_path_factory.mktemp("dist")
    absent = [p for p in ("dist", "build") if not (ROOT / p).exists()]
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT], env, out)
    assert not [p for p in absent if (ROOT / p).exists()], "the build wrote into the source"
    (sdist,) = out.glob("nbgraph-*.tar.gz")
    (wheel,) = out.glob("nbgraph-*.whl")
    return sdist, wheel


@pytest.fixture(scope="module")
def venv(
    tmp_path_factory: pytest.TempPathFactory, dists: tuple[Path, Path], env: dict[str, str]
) -> Path:
    """A fresh virtual environment with the wheel and its `lab` extra (JupyterLab).
    Bytecode is compiled as modules are imported, which halves the install's time."""
    venv = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", venv], env, venv)
    requirements = [f"{dists[1]}[lab]", "ipykernel", "nbclient", "nbformat"]
    run(
        [venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-compile", *requirements],
        env,
        venv,
        hint="; the install needs the package index",
    )
    assert shutil.which("node", path=venv_env(venv, env)["PATH"]) is None
    return venv


def test_wheel_holds_the_package_and_the_labextension(dists: tuple[Path, Path]) -> None:
    with zipfile.ZipFile(dists[1]) as wheel:
        names = wheel.namelist()
        (data,) = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".data")}
        labextension = f"{data}/data/{LABEXTENSION}"
        package = json.loads(wheel.read(f"{labextension}/package.json"))
        install = json.loads(wheel.read(f"{labextension}/install.json"))
    assert len(names) == len(set(names)), "the wheel holds a file twice"
    assert package["name"] == "nbgraph-labextension"
    assert install["packageName"] == "nbgraph"
    assert install["packageManager"] == "python"
    for name in (
        "nbgraph/__init__.py",
        "nbgraph/py.typed",
        "nbgraph/viz/static/wasm-graphviz.js",
        "nbgraph/viz/static/graph_widget.js",
        f"{labextension}/static/style.js",
        f"{labextension}/{package['jupyterlab']['_build']['load']}",
        f"{labextension}/schemas/nbgraph-labextension/settings.json",
    ):
        assert name in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    # The labextension only where JupyterLab finds it, not in the package as well.
    assert not [n for n in names if n.startswith("nbgraph/labextension/")]


def test_sdist_holds_the_source_and_the_built_labextension(dists: tuple[Path, Path]) -> None:
    with tarfile.open(dists[0]) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    for name in (
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "nbgraph/__init__.py",
        "nbgraph/py.typed",
        "labextension/package.json",
        "labextension/install.json",
        "labextension/src/index.ts",
        "nbgraph/labextension/package.json",
        "nbgraph/labextension/static/style.js",
        "nbgraph/viz/static/wasm-graphviz.js",
    ):
        assert name in names
    assert not [
        n
        for n in names
        if n.startswith((".venv/", "labextension/node_modules/")) or "__pycache__" in n
    ]


def test_jupyter_lists_the_labextension_enabled(
    venv: Path, env: dict[str, str], dists: tuple[Path, Path]
) -> None:
    listing = run([venv / "bin" / "jupyter", "labextension", "list"], venv_env(venv, env), venv)
    listing = re.sub(r"\x1b\[[0-9;]*m", "", listing)  # its colors
    version = dists[1].name.split("-")[1]
    folder = re.escape(str(venv / LABEXTENSION).rsplit("/", 1)[0])
    entry = rf"[ \t]+nbgraph-labextension v{re.escape(version)} enabled OK \(python, nbgraph\)"
    assert re.search(rf"^{folder}\n(?:[ \t]+.*\n)*?{entry}$", listing, re.M), listing


def test_notebook_runs_in_a_kernel_of_the_fresh_environment(
    venv: Path, env: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / "graph.ipynb"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nbformat.write(notebook, path)
    run([venv / "bin" / "python", "-c", EXECUTE, path, tmp_path], venv_env(venv, env), tmp_path)
    notebook = nbformat.read(path, as_version=4)
    cells = notebook.cells
    errors = [o for cell in cells for o in cell.outputs if o.output_type == "error"]
    assert not errors, "\n".join(line for e in errors for line in e.traceback)

    prefix, module = printed(cells[0]).split()
    assert Path(prefix) == venv
    assert Path(module).is_relative_to(venv) and not Path(module).is_relative_to(ROOT)
    assert printed(cells[3]).split() == ["GraphFunction", "7.5", "True"]

    (shown,) = [o for o in cells[4].outputs if WIDGET in o.get("data", {})]
    assert "<svg" in shown.data["image/svg+xml"]  # what shows where widgets do not run
    assert shown.data["text/plain"].startswith("graph clipped_total")
    widgets = notebook.metadata.widgets[WIDGET_STATE]["state"]
    assert widgets[shown.data[WIDGET]["model_id"]]["model_name"] == "AnyModel"
