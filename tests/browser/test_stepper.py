"""A ``%%step`` cell's stepper in JupyterLab and Notebook 7: stepping happens in the
browser, the step's line is highlighted in the cell that holds it, the variables show
their values."""

import json
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from notebook_page import NotebookPage

NOTEBOOKS = Path(__file__).parent / "notebooks"
DEFINE_SCALE, STEP = 1, 2  # cells of notebooks/stepper.ipynb


def variable(stepper, name):
    """(type, value) as the stepper's variables table shows them."""
    row = stepper.locator(f".nbgraph-stepper-variables tr[data-name='{name}']")
    row.wait_for()
    return (
        row.locator(".nbgraph-stepper-type").inner_text(),
        row.locator(".nbgraph-stepper-value").inner_text(),
    )


def test_step_through_a_cell(page, open_notebook, screenshot):
    notebook = open_notebook("stepper.ipynb")
    notebook.run_all()
    stepper = notebook.cell(STEP).locator(".nbgraph-stepper")
    position = stepper.locator(".nbgraph-stepper-position")
    position.get_by_text("step 1 of 8").wait_for()
    # Line 1 of the cell is the %%step line: the first step is line 2.
    notebook.expect_highlights("step", [(STEP, 2)])

    stepper.get_by_title("Next step (→)").click()
    position.get_by_text("line 3").wait_for()
    notebook.expect_highlights("step", [(STEP, 3)])
    kind, value = variable(stepper, "a")
    assert kind == "float64 (2, 3)"
    assert value.startswith("[0, 1, 2, 3, 4, 5]")
    assert "48 bytes · min 0 max 5 mean 2.5" in value
    assert stepper.locator("tr.nbgraph-stepper-changed[data-name='a']").count() == 1

    stepper.get_by_title("Next step (→)").click()  # into scale(), defined in another cell
    position.get_by_text("scale, line 2").wait_for()
    notebook.expect_highlights("step", [(DEFINE_SCALE, 2)])
    assert variable(stepper, "k") == ("int", "2")
    assert stepper.locator(".nbgraph-stepper-stack li").count() == 2

    stepper.get_by_title("Previous step (←)").click()
    position.get_by_text("<cell>, line 3").wait_for()
    notebook.expect_highlights("step", [(STEP, 3)])

    stepper.focus()
    page.keyboard.press("Shift+ArrowRight")  # step over the call
    position.get_by_text("<cell>, line 4").wait_for()
    notebook.expect_highlights("step", [(STEP, 4)])
    kind, value = variable(stepper, "b")
    assert kind == "float64 (2, 3)"
    assert value.startswith("[0, 2, 4, 6, 8, 10]")

    page.keyboard.press("End")
    position.get_by_text("step 8 of 8").wait_for()
    assert stepper.locator(".nbgraph-stepper-output").inner_text() == "total 30.0\n"
    # The go-to box takes a step number and Enter (JupyterLab would take Enter).
    page.keyboard.press("g")
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    page.keyboard.press("Enter")
    position.get_by_text("step 3 of 8").wait_for()
    notebook.expect_highlights("step", [(DEFINE_SCALE, 2)])
    stepper.screenshot(path=screenshot("stepper.png"))


def test_a_saved_recording_steps_without_its_kernel(page, lab_url):
    """A notebook run elsewhere and saved with its widget state: the recording is in
    that state, so it can be stepped through in a fresh session."""
    notebook = nbformat.read(NOTEBOOKS / "stepper.ipynb", as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    content = json.loads(nbformat.writes(notebook))
    for cell in content["cells"]:  # as JupyterLab saves the user's own notebook: trusted
        cell["metadata"]["trusted"] = True
    page.goto(f"{lab_url}/lab")  # the server's XSRF cookie, for the upload
    xsrf = next(c["value"] for c in page.context.cookies() if c["name"] == "_xsrf")
    response = page.request.put(
        f"{lab_url}/api/contents/stepper_saved.ipynb",
        headers={"X-XSRFToken": xsrf},
        data=json.dumps({"type": "notebook", "format": "json", "content": content}),
    )
    assert response.ok, response.text()

    saved = NotebookPage(page, lab_url, "stepper_saved.ipynb")
    stepper = saved.cell(STEP).locator(".nbgraph-stepper")
    position = stepper.locator(".nbgraph-stepper-position")
    position.get_by_text("step 1 of 8").wait_for()
    stepper.get_by_title("Step over (Shift+→)").click()
    stepper.get_by_title("Step over (Shift+→)").click()
    position.get_by_text("<cell>, line 4").wait_for()
    assert variable(stepper, "b")[1].startswith("[0, 2, 4, 6, 8, 10]")
    saved.expect_highlights("step", [(STEP, 4)])
