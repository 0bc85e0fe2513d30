"""The settings editor's nbgraph options turn line highlights off and colour them, in
JupyterLab and in Notebook 7 (the same settings, from the same server API)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

PLUGIN = "nbgraph-labextension:settings"
DEFINE_F, CALL_F = 0, 1  # cells of notebooks/error_line.ipynb; f raises at line 3

# What the settings editor does on save: PUT the raw JSON of the user's settings.
_SAVE = """
async ([url, raw]) => {
  const xsrf = (document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || '';
  const reply = await fetch(url, {
    method: 'PUT',
    headers: {'Content-Type': 'application/json', 'X-XSRFToken': xsrf},
    body: JSON.stringify({raw})
  });
  if (!reply.ok) throw new Error(`saving settings: ${reply.status} ${await reply.text()}`);
}
"""

_ERROR_LINE_SHADOW = """
() => getComputedStyle(document.querySelector('.cm-line.nbgraph-line-error')).boxShadow
"""


@pytest.fixture
def save_settings(page, jupyter) -> Iterator:
    """Save the user's nbgraph settings as the editor does; restored after the test."""

    def save(settings: dict) -> None:
        if not page.url.startswith(jupyter.url):  # the save needs the page's XSRF cookie
            page.goto(jupyter.url + jupyter.driver.HOME)
        page.evaluate(_SAVE, [f"{jupyter.url}/lab/api/settings/{PLUGIN}", json.dumps(settings)])

    yield save
    save({})


def error_line_shadow(page, open_notebook) -> str:
    """Open error_line.ipynb afresh, run it, and return the error line's accent."""
    notebook = open_notebook("error_line.ipynb")
    notebook.run_all()
    notebook.wait_for_output(CALL_F, "ZeroDivisionError")
    notebook.expect_highlights("error", [(DEFINE_F, 3)])
    return page.evaluate(_ERROR_LINE_SHADOW)


def test_a_colour_set_in_the_settings_colours_the_line(page, open_notebook, save_settings):
    theme_shadow = error_line_shadow(page, open_notebook)

    save_settings({"error": {"enabled": True, "color": "rgb(0, 128, 0)"}})
    assert "rgb(0, 128, 0)" in error_line_shadow(page, open_notebook)

    # A value that is not a CSS colour leaves the theme's colour.
    save_settings({"error": {"enabled": True, "color": "not a colour"}})
    assert error_line_shadow(page, open_notebook) == theme_shadow


def test_a_kind_turned_off_is_not_highlighted(open_notebook, save_settings):
    save_settings({"error": {"enabled": False, "color": ""}})
    notebook = open_notebook("error_line.ipynb")
    notebook.run_all()
    notebook.wait_for_output(CALL_F, "ZeroDivisionError")
    notebook.page.wait_for_timeout(2_000)  # the highlight, were it on, shows well within this
    notebook.expect_highlights("error", [])
