"""Sphinx configuration of nbgraph's documentation site (``make docs`` builds it).

The notebooks and the error catalogue are executed on every build, so their outputs are
what this version of nbgraph prints; a cell that fails unexpectedly fails the build.
"""

from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging

from nbgraph.version import __version__

project = "nbgraph"
release = __version__
version = __version__

extensions = ["myst_nb", "sphinx.ext.autodoc"]

# The notebooks live in notebooks/ (where `make lab` opens them); the symbolic links
# beside this file make them pages of the site.
exclude_patterns = ["_build", "jupyter_execute", ".jupyter_cache", "**.ipynb_checkpoints"]
LINKED_PAGES = {
    str(page.resolve().with_suffix("")): page.stem
    for page in Path(__file__).parent.glob("*.ipynb")
    if page.is_symlink()
}

# Execution: every notebook page runs in a fresh kernel, in a temporary folder, on each
# build. Cells tagged `raises-exception` are expected to fail; any other error fails the
# build. A graph compile takes seconds, a `%compare` with first calls in new processes
# up to a minute.
nb_execution_mode = "force"
nb_execution_in_temp = True
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_show_tb = True

# Graph views, steppers and `%compare` charts are widgets that need a kernel; each output
# also carries a static SVG or HTML version, which the pages show instead.
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
nb_ipywidgets_js = {}

myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_inherit_docstrings = False

html_theme = "furo"
html_title = f"nbgraph {version}"

logger = logging.getLogger(__name__)


def link_to_linked_pages(app: Sphinx, doctree: nodes.document) -> None:
    """Sphinx follows a page's symbolic link when it resolves a link to the page (the
    tour's to ``debugging.ipynb``), which leaves the site: point such links at the page."""
    for node in doctree.findall(addnodes.pending_xref):
        page = LINKED_PAGES.get(node.get("reftarget"))
        if page is not None:
            node["reftarget"] = page


def check_expected_errors(app: Sphinx, doctree: nodes.document) -> None:
    """A cell tagged ``raises-exception`` that raised nothing would show an error's
    example without the error: warn (an error, under ``-W``)."""
    for cell in doctree.findall(nodes.container):
        if "tag_raises-exception" in cell["classes"] and not any(
            "traceback" in node["classes"] for node in cell.findall(nodes.Element)
        ):
            logger.warning("this cell is tagged raises-exception but raised nothing", location=cell)


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", link_to_linked_pages)
    app.connect("doctree-read", check_expected_errors)
