"""Pytest configuration for the differential tests.

Every differential test runs once per backend: the interpret backend is the semantic
reference and the compiled backends must agree with eager Python exactly as it does.
``NBGRAPH_TEST_BACKENDS`` (comma-separated) narrows the list.
"""

import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import harness  # noqa: E402

BACKENDS = os.environ.get("NBGRAPH_TEST_BACKENDS", "interpret,cpu,cuda").split(",")


@pytest.fixture(params=BACKENDS, autouse=True)
def graph_backend(request, monkeypatch):
    """Run the test against one backend."""
    monkeypatch.setattr(harness, "BACKEND", request.param)
    return request.param


def pytest_report_header(config):
    return f"nbgraph differential tests, backends: {', '.join(BACKENDS)}"
