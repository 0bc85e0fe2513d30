"""The line that raised an error is highlighted in the cell that holds it, in JupyterLab
and in Notebook 7."""

DEFINE_F, CALL_F = 0, 1  # cells of notebooks/error_line.ipynb


def test_error_line_is_highlighted_in_the_defining_cell(open_notebook):
    notebook = open_notebook("error_line.ipynb")
    notebook.run_all()
    notebook.wait_for_output(CALL_F, "ZeroDivisionError")
    # f raises in cell 1, line 3 ("return 1 // (y - y)"), though cell 2 called it.
    notebook.expect_highlights("error", [(DEFINE_F, 3)])

    notebook.run_cell(DEFINE_F)  # a new execution clears the error line
    notebook.expect_highlights("error", [])

    notebook.run_all()
    notebook.expect_highlights("error", [(DEFINE_F, 3)])
    notebook.type_in_cell(DEFINE_F, 1, "  # edited")  # so does editing that cell
    notebook.expect_highlights("error", [])


def test_graph_function_error_highlights_the_failing_helper_line(open_notebook):
    notebook = open_notebook("graph_error_line.ipynb")
    notebook.run_all()
    notebook.wait_for_output(1, "IndexError")
    traceback = notebook.cell(1).locator(".jp-OutputArea-output").inner_text()
    assert "in helper" in traceback and "in graph 'total'" in traceback  # mapped
    # The compiled graph of `total` fails in `helper`, line 7 of cell 0.
    notebook.expect_highlights("error", [(0, 7)])
