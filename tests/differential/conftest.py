"""Pytest configuration for the differential tests.

The tests import ``nbgraph`` from the repository checkout, so the repository root is put on
``sys.path`` however pytest was launched.  The header line names the backend under test.
"""

import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


def pytest_report_header(config):
    backend = os.environ.get("NBGRAPH_TEST_BACKEND", "interpret")
    return f"nbgraph differential tests, backend: {backend}"
