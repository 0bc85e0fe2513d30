"""Pytest configuration for the fuzzer: the differential harness and the generator import."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (HERE.parents[1], HERE.parent / "differential", HERE):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
