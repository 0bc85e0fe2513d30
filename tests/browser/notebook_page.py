"""Driving one notebook in a JupyterLab or Notebook 7 page, and reading its line
highlights."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

# (cell index from 0, line number from 1) of every editor line with a CSS class.
_FIND_LINES = """
cls => {
  const cells = document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell');
  const found = [];
  cells.forEach((cell, i) =>
    cell.querySelectorAll('.cm-content .cm-line').forEach((line, j) => {
      if (line.classList.contains(cls)) found.push([i, j + 1]);
    }));
  return found;
}
"""

# The toolbar's execution indicator reads "idle" before any kernel is known, so the
# kernel's name must have replaced "No Kernel" too.
_TOOLBAR_KERNEL_IDLE = """
() => {
  const toolbar = document.querySelector('.jp-NotebookPanel-toolbar');
  const name = toolbar?.querySelector("[data-jp-item-name='kernelName']")?.textContent.trim();
  const indicator = toolbar?.querySelector('.jp-Notebook-ExecutionIndicator');
  return !!name && name !== 'No Kernel' && indicator?.dataset.status === 'idle';
}
"""


class NotebookPage:
    """A notebook opened in JupyterLab with a running kernel."""

    PATH = "/lab/tree/{name}?reset"  # under the server's base URL
    HOME = "/lab"  # the application's page (it sets the server's XSRF cookie)

    def __init__(self, page: Page, base_url: str, name: str) -> None:
        self.page = page
        page.goto(base_url + self.PATH.format(name=name))
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for()
        self.wait_for_idle_kernel()

    def wait_for_idle_kernel(self) -> None:
        # The status bar reads "<kernel> | Idle" once the kernel is connected and idle.
        self.page.locator("#jp-main-statusbar", has_text=re.compile(r"\| Idle")).wait_for()

    def cell(self, index: int) -> Locator:
        return self.page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").nth(index)

    def run_all(self) -> None:
        self.page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        self.page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()

    def run_cell(self, index: int) -> None:
        """Run one cell (Shift+Enter in command mode)."""
        self.cell(index).locator(".jp-InputPrompt").click()
        self.page.keyboard.press("Shift+Enter")

    def append_and_run(self, code: str) -> int:
        """Add a code cell at the end, run it, and return its index."""
        count = self.page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").count()
        self.cell(count - 1).locator(".jp-InputPrompt").click()
        self.page.keyboard.press("b")
        self.page.keyboard.press("Enter")
        self.page.keyboard.insert_text(code)
        self.page.keyboard.press("Shift+Enter")
        return count

    def type_in_cell(self, index: int, line: int, text: str) -> None:
        """Type ``text`` at the end of a 1-based line of a cell's editor."""
        self.cell(index).locator(".cm-content .cm-line").nth(line - 1).click()
        self.page.keyboard.press("End")
        self.page.keyboard.insert_text(text)

    def wait_for_output(self, index: int, text: str) -> None:
        try:
            self.cell(index).locator(".jp-OutputArea-output", has_text=text).wait_for()
        except PlaywrightTimeout:
            cell = self.cell(index)
            prompt = cell.locator(".jp-InputPrompt").inner_text()
            outputs = cell.locator(".jp-OutputArea").inner_text()
            raise AssertionError(
                f"cell {index} never showed {text!r}; its prompt reads {prompt!r} "
                f"and its output {outputs!r}"
            ) from None

    def highlighted_lines(self, kind: str) -> list[tuple[int, int]]:
        found = self.page.evaluate(_FIND_LINES, f"nbgraph-line-{kind}")
        return [tuple(pair) for pair in found]

    def expect_highlights(
        self, kind: str, expected: list[tuple[int, int]], timeout_ms: float = 15_000
    ) -> None:
        """Wait until exactly ``expected`` (cell index, line) pairs carry ``kind``."""
        wanted = [list(pair) for pair in expected]
        try:
            self.page.wait_for_function(
                f"([cls, wanted]) => JSON.stringify(({_FIND_LINES})(cls)) === "
                "JSON.stringify(wanted)",
                arg=[f"nbgraph-line-{kind}", wanted],
                timeout=timeout_ms,
            )
        except PlaywrightTimeout:
            pass
        assert self.highlighted_lines(kind) == expected


class Notebook7Page(NotebookPage):
    """A notebook opened in Jupyter Notebook 7: its own page around the same notebook
    widget, with the kernel's state in the notebook's toolbar (there is no status bar)."""

    PATH = "/notebooks/{name}"
    HOME = "/tree"

    def wait_for_idle_kernel(self) -> None:
        self.page.wait_for_function(_TOOLBAR_KERNEL_IDLE)
