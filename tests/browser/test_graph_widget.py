"""The graph widget in JupyterLab and Notebook 7: fold and unfold a loop, select a node, see its
details, its line in the cell and ``widget.selected`` in the kernel; search; a layout
made in the browser; the nodes holding a NaN found by searching "nan"; helper calls
folded into one box each in the iterations of the loop unrolled around them, unfolded
and refitted to the width; the explain panel and the
nodes its facts highlight; what conversion added hidden, and shown by its toggle; the
graph as traced beside the graph as optimised."""

import re

import pytest

DEFINE, VIEW, BROWSER_LAYOUT, NAN, HELPERS, EXITS, PASSES = range(1, 8)  # graph_widget.ipynb
IF_LINE = 8  # `if n % 2 == 0:` in the DEFINE cell
WHILE_LINE = 7  # `while n != 1:`


def _centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_graph_widget(page, open_notebook, screenshot):
    notebook = open_notebook("graph_widget.ipynb")
    notebook.run_all()
    view = notebook.cell(VIEW)
    loop_title = view.locator("g.cluster > text", has_text="while")
    loop_title.wait_for()

    loop_title.click()  # fold the loop: one node in its place
    folded = view.locator("g.node", has_text="▸ while")
    folded.wait_for()
    assert view.locator("g.cluster").count() == 0
    where = _centre(folded)
    folded.click()  # selected: its line is highlighted, and the drawing stays put
    view.locator(".nbgraph-graph-panel h4", has_text="while").wait_for()
    notebook.expect_highlights("node", [(DEFINE, WHILE_LINE)])
    assert _centre(folded) == pytest.approx(where, abs=1)
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
    view.screenshot(path=screenshot("graph_widget.png"))

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
    other.screenshot(path=screenshot("browser_layout.png"))

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

    # The fusion overlay: `a * a` and its row sums are one pass of the CPU backend.
    nan.get_by_label("fusion").check()
    fused = nan.locator("g.node", has_text="fused pass 1")
    fused.first.wait_for()
    assert fused.count() == 2
    fused.first.click()  # its record comes from the kernel
    panel.locator("text=one pass over the elements").wait_for()
    nan.screenshot(path=screenshot("nan_search.png"))


# The drawing's width on the page against the width it has to fit in.
_WIDTHS = """
cell => {
  const svg = cell.querySelector('.nbgraph-graph-canvas svg');
  const canvas = cell.querySelector('.nbgraph-graph-canvas');
  return [parseFloat(svg.getAttribute('width')), canvas.clientWidth];
}
"""


def test_helper_calls_fold_into_one_box_each(open_notebook, screenshot):
    notebook = open_notebook("graph_widget.ipynb")
    notebook.run_all()
    view = notebook.cell(HELPERS)
    calls = view.locator("g.node", has_text="▸ standardize(…)")
    calls.first.wait_for()  # eight calls of 9 nodes: the view starts folded
    assert calls.count() == 8
    # ... each in its iteration, in the cluster of the loop unrolled while tracing
    view.locator("g.cluster > text", has_text="▾ unrolled loop · line 12 · 8 iterations").wait_for()
    assert view.locator("g.cluster > text", has_text=re.compile(r"^▾ iteration \d$")).count() == 8

    calls.first.click()  # a folded call: what it is, and a button to unfold it
    panel = view.locator(".nbgraph-graph-panel")
    panel.locator("h4", has_text="standardize(…) · line ").wait_for()
    assert "9 nodes" in panel.inner_text()
    panel.get_by_role("button", name="Unfold").click()
    title = view.locator("g.cluster > text", has_text="▾ standardize(…)")
    title.wait_for()
    assert calls.count() == 7
    view.locator("g.node", has_text="▸ normalize(…)").wait_for()  # the call inside it

    view.get_by_role("button", name="Unfold all").click()
    view.locator("g.cluster > text", has_text="▾ normalize(…)").nth(7).wait_for()
    drawn, room = view.evaluate(_WIDTHS)
    assert drawn <= room  # refitted to the width after unfolding
    view.screenshot(path=screenshot("helper_calls.png"))

    title.first.click()  # fold one call again from its title
    view.locator("g.node", has_text="▸ standardize(…)").first.wait_for()
    assert view.locator("g.cluster > text", has_text="▾ standardize(…)").count() == 7

    # The explain panel: the trace, then a line per fact; a fact highlights its nodes.
    view.get_by_role("button", name="Fold all", exact=True).click()
    view.locator("g.node", has_text="▸ unrolled loop · line 12").wait_for()
    assert calls.count() == 0
    view.get_by_role("button", name="Explain").click()
    panel.locator("h4", has_text="What graph mode made of this graph").wait_for()
    text = panel.inner_text()
    assert "trace 1 (float64 1-d array): first call" in text
    assert "built in" in text
    unrolled = panel.locator("li", has_text="a Python loop ran 8 times while tracing")
    unrolled.click()  # its nodes: every call's, unfolded and highlighted
    view.locator("text=highlighted").wait_for()
    view.locator("g.cluster > text", has_text="▾ standardize(…)").nth(7).wait_for()
    assert view.locator("g.node.nbgraph-graph-match").count() >= 8 * 9
    assert "a Python loop ran 8 times" in panel.inner_text()  # the panel stays
    view.screenshot(path=screenshot("explain_panel.png"))
    view.get_by_role("button", name="Explain").click()  # back to the node details
    panel.locator(".nbgraph-graph-hint").wait_for()


def test_what_conversion_added_is_hidden_until_asked_for(open_notebook, screenshot):
    notebook = open_notebook("graph_widget.ipynb")
    notebook.run_all()
    view = notebook.cell(EXITS)
    title = view.locator("g.cluster > text", has_text="while · line 4 · break at line 6")
    title.wait_for()  # the loop says how it exits; its flag, `not` and token are not drawn
    view.locator("g.cluster > text", has_text="unless break · line 5").wait_for()
    nots = view.locator("g.node text", has_text=re.compile(r"^not$"))
    assert nots.count() == 0
    search = view.locator("input[type=search]")
    search.fill("not")
    view.locator("text=0 found").wait_for()
    view.screenshot(path=screenshot("scaffolding_hidden.png"))

    view.get_by_label("scaffolding").check()  # the compiler's whole graph
    nots.first.wait_for()
    assert title.count() == 0
    view.locator("g.cluster > text", has_text="while · line 4").wait_for()
    search.fill("not")
    view.locator("text=/[1-9] found/").wait_for()
    view.screenshot(path=screenshot("scaffolding_shown.png"))


def test_the_graph_before_and_after_the_passes_side_by_side(open_notebook, screenshot):
    notebook = open_notebook("graph_widget.ipynb")
    notebook.run_all()
    cell = notebook.cell(PASSES)
    before = cell.locator(".nbgraph-graph-root").nth(0)
    after = cell.locator(".nbgraph-graph-root").nth(1)
    before.locator("text=as traced (2 taken out by the passes)").wait_for()
    after.locator("text=after dce, cse, fold, dce").wait_for()
    before.locator("g.node", has_text="merged into an equal one").wait_for()
    before.locator("g.node", has_text="removed: unused").wait_for()
    assert after.locator("g.node", has_text="np.sum").count() == 0
    left, right = (box.bounding_box() for box in (before, after))
    assert left["x"] + left["width"] <= right["x"] + 1  # side by side
    cell.screenshot(path=screenshot("passes_view.png"))
