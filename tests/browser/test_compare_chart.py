"""``%compare``'s bar chart fits the output area: every bar label and time is inside
it, also on a laptop-sized window where the area is narrower than the chart's natural
width."""

COMPARE = 2  # cell of notebooks/compare_chart.ipynb

# Each text of the chart: its content, and whether it lies inside the output area.
_TEXTS_INSIDE = """
cell => {
  const svg = cell.querySelector("svg[aria-label='median time per call']");
  const box = svg.closest('.jp-OutputArea-output').getBoundingClientRect();
  return [...svg.querySelectorAll('text')].map(t => {
    const r = t.getBoundingClientRect();
    return [t.textContent, r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1];
  });
}
"""


def test_the_chart_is_fully_visible_in_a_narrow_window(page, open_notebook, screenshot):
    page.set_viewport_size({"width": 900, "height": 800})
    notebook = open_notebook("compare_chart.ipynb")
    notebook.run_all()
    notebook.wait_for_output(COMPARE, "graph (cpu)")
    cell = notebook.cell(COMPARE)
    cell.locator("svg[aria-label='median time per call'] text").first.wait_for()
    texts = cell.evaluate(_TEXTS_INSIDE)
    assert [t for t, _ in texts][0::2] == ["eager", "graph (cpu)"]
    assert all(inside for _, inside in texts), texts
    cell.screenshot(path=screenshot("compare_chart.png"))
