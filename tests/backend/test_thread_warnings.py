"""A compile on a background thread keeps Numba's warnings for the caller's thread and
leaves the warnings module's shared state alone (backend/numba_cpu/thread_warnings.py)."""

from __future__ import annotations

import threading
import warnings

from numba.core import errors

from nbgraph.backend.numba_cpu import thread_warnings


def on_a_compile_thread(work):
    """What ``work`` returned and the warnings kept, run inside ``kept()`` on a thread."""
    out = {}

    def run():
        with thread_warnings.kept() as given:
            out["value"] = work()
        out["kept"] = given

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return out["value"], out["kept"]


def test_numbas_recorder_and_filters_work_per_thread():
    filters, show = warnings.filters[:], warnings.showwarning

    def numba_like():
        fixer = errors.WarningsFixer(errors.NumbaWarning)
        with fixer:
            for _ in range(2):  # recorded twice, given once
                with fixer.catch_warnings(filename="f.py", lineno=3):
                    errors.warnings.warn(errors.NumbaWarning("slow loop"))
                    errors.warnings.warn("other", UserWarning, stacklevel=1)
            with errors.warnings.catch_warnings():
                errors.warnings.simplefilter("ignore", errors.NumbaWarning)
                errors.warnings.warn(errors.NumbaWarning("dropped"))
        return warnings.filters == filters and warnings.showwarning is show

    untouched, kept = on_a_compile_thread(numba_like)
    assert untouched
    assert sorted((m, c) for m, c, _, _ in kept) == [
        ("other", UserWarning),
        ("other", UserWarning),
        ("slow loop", errors.NumbaWarning),
    ]
    assert ("slow loop", errors.NumbaWarning, "f.py", 3) in kept


def test_other_threads_see_the_warnings_module_itself():
    on_a_compile_thread(lambda: None)
    assert errors.warnings is thread_warnings.THREAD_AWARE
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        errors.warnings.warn("given", UserWarning, stacklevel=1)
    assert [(str(w.message), w.filename) for w in caught] == [("given", __file__)]
