"""The documentation site builds as ``make docs`` builds it: warnings are errors, the
notebooks and the error catalogue run, and nothing is written into the source tree."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nbgraph

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    "index",
    "getting-started",
    "tour",
    "debugging",
    "guide",
    "api",
    "errors",
    "architecture",
    "performance",
]


def source_files() -> set[Path]:
    """The files a build could write among: the site's sources and the notebooks."""
    return {p for folder in ("docs", "notebooks") for p in (ROOT / folder).rglob("*")}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site's folder (the executed notebooks and the caches go beside it)."""
    out = tmp_path_factory.mktemp("docs") / "html"
    before = source_files()
    options = ["-W", "--keep-going", "-E", "-j", "auto", "-q", "-b", "html"]  # as `make docs`
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", *options, str(ROOT / "docs"), str(out)],
        capture_output=True,
        text=True,
        cwd=out.parent,
    )
    assert build.returncode == 0, build.stderr[-20_000:]
    assert source_files() == before
    return out


def page(site: Path, name: str) -> str:
    return (site / f"{name}.html").read_text()


def text(site: Path, name: str) -> str:
    """A page's text as a reader sees it (no markup, one space between words)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page(site, name))).split())


def test_every_page_is_built(site):
    for name in PAGES:
        assert (site / f"{name}.html").is_file(), name


def test_notebooks_are_executed_with_static_views_of_their_widgets(site):
    tour = text(site, "tour")
    assert "collatz_steps(27) 111" in tour
    assert "nbgraph stepper, step" in tour  # %%step's recording
    assert "compare collatz_steps(27)" in tour and "results agree" in tour  # %compare
    assert "IndexError: index 6 is out of bounds for axis 0 with size 6" in tour
    assert '<img alt="_images/' in page(site, "tour")  # the graph view's SVG
    debugging = text(site, "debugging")
    assert "made 2 NaN of 6 values" in debugging
    assert "agrees with central differences" in debugging
    for name in ("tour", "debugging"):
        assert "widget-view" not in page(site, name)  # no placeholder of a widget


def test_api_reference_documents_the_public_api(site):
    documented = page(site, "api") + page(site, "errors")
    names = [name for name in nbgraph.__all__ if name != "distributed"]
    missing = [name for name in names if f'id="nbgraph.{name}"' not in documented]
    assert not missing
    assert 'id="module-nbgraph.distributed"' in documented
    assert "Make fn a graph function" in text(site, "api")  # nbgraph.function's docstring


def test_catalogue_shows_each_error_as_raised(site):
    errors = text(site, "errors")
    for shown in (
        "ConversionError: evens is a generator",
        "StagingError: np.random.normal() draws new random numbers on every call",
        "LoopTypeError: variable 'x' has dtype int before the loop",
        "UndefinedValueError: variable 'label' is assigned in only one branch",
        "NotDifferentiableError: np.sort has no gradient",
        "DeviceUnsupportedError:",
        "BlockwiseError:",
        "ShippingError:",
        "LayoutUnavailable: the graph cannot be laid out",
        "NbgraphPerformanceWarning: nbgraph: graph 'through_view' at line 5: this update",
        "RetracingWarning: total has been traced 6 times",
    ):
        assert shown in errors, shown


def test_architecture_and_performance_come_from_the_readme(site):
    architecture = text(site, "architecture")
    assert "nbgraph/viz/" in architecture and "Where things go" in architecture
    assert "nbgraph benchmark" in text(site, "performance")
