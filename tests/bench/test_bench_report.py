"""The README's benchmark tables are the ones bench/report.py renders from
bench/results.json, and a crashing measurement loses only the item it was on."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import report  # noqa: E402
from measure import run_resumable  # noqa: E402


def test_readme_tables_are_rendered_from_results_json():
    results = json.loads((ROOT / "bench" / "results.json").read_text())
    if "tables" not in results:
        pytest.skip("results.json predates the per-thread-setting tables")
    gpu_path = ROOT / "bench" / "results_gpu.json"
    gpu = json.loads(gpu_path.read_text()) if gpu_path.exists() else None
    readme = (ROOT / "README.md").read_text()
    assert report.readme_block(results, gpu) in readme


def test_rewrite_replaces_only_between_the_markers():
    before = f"intro\n{report.BEGIN}\nold\n{report.END}\noutro\n"
    after = report.rewrite(before, f"{report.BEGIN}\nnew\n{report.END}")
    assert after == f"intro\n{report.BEGIN}\nnew\n{report.END}\noutro\n"
    with pytest.raises(SystemExit):
        report.rewrite("no markers", "x")


def test_a_crashing_child_loses_only_the_item_it_was_on(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(
        textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(ROOT / "bench")!r})
        from pathlib import Path
        from measure import Progress
        progress = Progress(Path(sys.argv[1]))
        for name in sys.argv[2:]:
            progress.start(name)
            if name == "b":
                os.abort()
            progress.finish(name, name.upper())
        progress.extra(finished=True)
    """)
    )

    def command(remaining, path):
        return [sys.executable, str(script), str(path), *remaining]

    done, crashed, extra = run_resumable(command, ["a", "b", "c"], dict(os.environ), 60)
    assert done == {"a": "A", "c": "C"}
    assert list(crashed) == ["b"] and "died" in crashed["b"]
    assert extra == {"finished": True}
