"""The graph widget in JupyterLab and Notebook 7: fold and unfold a loop, select a node, see its
details, its line in the cell and ``widget.selected`` in the kernel; search; a layout
made in the browser; the nodes holding a NaN found by searching "nan"."""

import re

DEFINE, VIEW, BROWSER_LAYOUT, NAN = 1, 2, 3, 4  # cells of notebooks/graph_widget.ipynb
IF_LINE = 8  # `if n % 2 == 0:` in the DEFINE cell


def test_graph_widget(page, open_notebook, tmp_path):
    notebook = open_notebook("graph_widget.ipynb")
    notebook.run_all()
    view = notebook.cell(VIEW)
    loop_title = view.locator("g.cluster > text", has_text="while")
    loop_title.wait_for()

    loop_title.click()  # fold the loop: one node in its place
    folded = view.locator("g.node", has_text="▸ while")
    folded.wait_for()
    assert view.locator("g.cluster").count() == 0
    folded.dblclick()  # unfold it again
    loop_title.wait_for()
    assert folded.count() == 0

    modulo = view.locator("g.node", has=page.locator("text", has_text=re.compile(r"^%$")))
    modulo.click()
    panel = view.locator(".nbgraph-graph-panel")
    panel.locator(".nbgraph-graph-current", has_text="if n % 2 == 0:").wait_for()
    assert f"line {IF_LINE}, in collatz" in panel.inner_text()
    assert "elementwise" in panel.inner_text()
    name = panel.locator("h4").inner_text().split()[0]  # the listing's name, "%11"
    assert re.fullmatch(r"%\d+", name)
    notebook.expect_highlights("node", [(DEFINE, IF_LINE)])
    view.screenshot(path=tmp_path / "graph_widget.png")

    shown = notebook.append_and_run("print('selected', view.selected, view.selected_node.label())")
    notebook.wait_for_output(shown, f"selected {name} %")

    search = view.locator("input[type=search]")  # by line: `n = n // 2`
    search.fill(f"line {IF_LINE + 1}")
    search.press("Enter")
    panel.locator("h4", has_text="//").wait_for()
    notebook.expect_highlights("node", [(DEFINE, IF_LINE + 1)])

    # Laid out in the browser (as where the kernel has no Graphviz), with inspected values.
    other = notebook.cell(BROWSER_LAYOUT)
    other.locator("g.node", has_text="int 27").wait_for()
    other.screenshot(path=tmp_path / "browser_layout.png")

    # A zero row: its norm's division makes the NaNs; searching "nan" finds the nodes.
    nan = notebook.cell(NAN)
    search = nan.locator("input[type=search]")
    search.fill("nan")
    nan.locator("text=1 found").wait_for()
    assert nan.locator("g.node.nbgraph-graph-match").count() == 1
    search.press("Enter")  # the first one found: its details
    panel = nan.locator(".nbgraph-graph-panel")
    panel.locator("h4", has_text="/").wait_for()
    assert "2 NaN" in panel.inner_text()
    nan.screenshot(path=tmp_path / "nan_search.png")
