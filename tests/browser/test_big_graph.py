"""A 20,000-node graph in the graph view, in JupyterLab and Notebook 7: it opens folded
to a screenful (a loop unrolled 4000 times, its iterations in ranges of 1000, 100 and
10), draws within a second of its output arriving, unfolds a range within half a
second, finds a variable by search, and shows a node's details (sent when asked for).

The times are measured in the page (``performance.now()``): the first draw from the
moment the cell is run, less the kernel's own time to build the view (the cell prints
it); an unfold from the double-click to the new drawing, the kernel's layout included
(the fastest of four).
"""

import re

LOAD, DEFINE, TRACE, VIEW = range(4)  # big_graph.ipynb
NODES = 20_001
FIRST_DRAW_MS = 1000
UNFOLD_MS = 500

# Install an observer noting when the view's first drawing appears; returns now.
_WATCH_FIRST_DRAW = """
() => {
  window.__nbgraphFirstDraw = null;
  const seen = new MutationObserver(() => {
    if (document.querySelector('.nbgraph-graph-canvas svg')) {
      window.__nbgraphFirstDraw = performance.now();
      seen.disconnect();
    }
  });
  seen.observe(document.body, { childList: true, subtree: true });
  return performance.now();
}
"""

# Double-click a folded box and wait for the drawing that replaces it: milliseconds.
_UNFOLD = """
async ([cell, id]) => {
  const canvas = cell.querySelector('.nbgraph-graph-canvas');
  const before = canvas.querySelector('svg');
  const box = canvas.querySelector(`g.node[id="${id}"]`);
  const start = performance.now();
  const drawn = new Promise((resolve) => {
    const seen = new MutationObserver(() => {
      if (canvas.querySelector('svg') !== before) {
        seen.disconnect();
        resolve(performance.now());
      }
    });
    seen.observe(canvas, { childList: true });
  });
  box.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
  return (await drawn) - start;
}
"""


def test_a_20000_node_graph_opens_folded_and_stays_quick(open_notebook, screenshot):
    notebook = open_notebook("big_graph.ipynb")
    for index in (LOAD, DEFINE, TRACE):
        notebook.run_cell(index)
    notebook.wait_for_output(TRACE, f"{NODES} nodes")

    page = notebook.page
    started = page.evaluate(_WATCH_FIRST_DRAW)
    notebook.run_cell(VIEW)
    cell = notebook.cell(VIEW)
    canvas = cell.locator(".nbgraph-graph-canvas svg")
    canvas.wait_for()
    built = float(re.search(r"built in ([\d.]+) s", cell.inner_text()).group(1))
    first_draw = page.evaluate("window.__nbgraphFirstDraw") - started - built * 1000
    print(f"view built in the kernel in {built:.2f} s, drawn {first_draw:.0f} ms after")
    assert first_draw < FIRST_DRAW_MS

    # Folded to a screenful: the loop, its ranges of 1000 open, those of 100 folded.
    loop = "▾ unrolled loop · line 14 · 4000 iterations"
    cell.locator("g.cluster > text", has_text=loop).wait_for()
    boxes = cell.locator("g.node")
    assert boxes.count() <= 60
    ranges = cell.locator("g.node", has_text=re.compile(r"▸ iterations \d+-\d+"))
    assert ranges.count() == 40
    assert cell.get_by_role("button", name="Unfold all").is_disabled()  # too many to draw
    cell.screenshot(path=screenshot("big_graph.png"))

    # Unfold a range of 100, then three of 10 in it: each drawn anew.  The fastest
    # counts (the machines are shared: a busy moment is no slower view).
    times = []
    for first in (101, 101, 111, 121):
        size = 99 if len(times) == 0 else 9
        label = f"^▸ iterations {first}-{first + size}$"
        box = cell.locator("g.node", has=page.locator("text", has_text=re.compile(label)))
        times.append(page.evaluate(_UNFOLD, [cell.element_handle(), box.get_attribute("id")]))
    print(f"unfolds drawn in {', '.join(f'{t:.0f}' for t in times)} ms")
    assert min(times) < UNFOLD_MS
    calls = cell.locator("g.node", has_text="▸ layer(…) · line 15")
    assert calls.count() == 30  # iterations 101-130: one call each

    # Search finds a variable of the helper among all 20,000 nodes; the first one
    # found is unfolded to and its details come from the kernel.
    search = cell.locator("input[type=search]")
    search.fill("h = tanh")
    cell.locator("text=4000 found").wait_for()
    search.press("Enter")
    panel = cell.locator(".nbgraph-graph-panel")
    panel.locator("h4", has_text="h = tanh").wait_for()
    panel.locator(".nbgraph-graph-current", has_text="h = np.tanh(h)").wait_for()
    assert "called from" in panel.inner_text()
    cell.locator("g.cluster > text", has_text="▾ layer(…) · line 15").first.wait_for()
    cell.screenshot(path=screenshot("big_graph_found.png"))
