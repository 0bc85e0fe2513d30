"""A graph displayed in a real kernel: the widget, an SVG that exported HTML shows where
no widget state was saved, and the listing; the cell's source lines in the details."""

import base64
import re

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

CELLS = [
    """import numpy as np
import nbgraph as ng


@ng.function
def clipped_sum(x, limit):
    total = 0.0
    for v in x:
        if v > limit:
            total += v
    return total""",
    "clipped_sum.graph(np.arange(5.0), 3.0)",
    """view = clipped_sum.graph(np.arange(5.0), 3.0).widget()
where = view.details(next(i for i, e in view.nodes.items() if e["op"] == ">"))["location"]
print(where["text"], "|", view.sources[where["file"]][str(where["line"])].strip())""",
]


def test_graph_output_in_a_kernel_and_in_exported_html(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    # Saved as JupyterLab saves by default: without the widgets' state.
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        store_widget_state=False,
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    (output,) = notebook.cells[1].outputs
    data = output["data"]
    assert set(data) == {"application/vnd.jupyter.widget-view+json", "image/svg+xml", "text/plain"}
    assert data["text/plain"].startswith("graph clipped_sum\n  params %0 (x), %1 (limit)")
    assert '<g id="cluster_' in data["image/svg+xml"]
    (printed,) = notebook.cells[2].outputs
    assert printed["text"] == "Cell In[1], line 9, in clipped_sum | if v > limit:\n"

    html, _ = HTMLExporter().from_notebook_node(notebook)
    (image,) = re.findall(
        r'data-mime-type="image/svg\+xml"[^>]*>\s*<img[^>]*'
        r'src="data:image/svg\+xml;base64,([^"]+)"',
        html,
    )
    assert base64.b64decode(image).decode() == data["image/svg+xml"]
