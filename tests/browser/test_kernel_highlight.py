"""Kernel-side code highlights cell lines through the `nbgraph` comm (JupyterLab and
Notebook 7)."""

DEFINE_G, HIGHLIGHT = 1, 2  # cells of notebooks/kernel_highlight.ipynb


def test_highlight_line_from_the_kernel(open_notebook):
    notebook = open_notebook("kernel_highlight.ipynb")
    notebook.run_all()
    # Known cell file -> True (twice); a file that is no cell -> False.
    notebook.wait_for_output(HIGHLIGHT, "True True False")
    notebook.expect_highlights("node", [(DEFINE_G, 3)])
    notebook.expect_highlights("step", [(DEFINE_G, 2)])
    notebook.expect_highlights("error", [])

    notebook.append_and_run('print(frontend.clear_highlights("node"))')
    notebook.expect_highlights("node", [])
    notebook.expect_highlights("step", [(DEFINE_G, 2)])
    notebook.append_and_run("print(frontend.clear_highlights())")
    notebook.expect_highlights("step", [])
