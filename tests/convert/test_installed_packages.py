"""Which code is a library's: a package pip installed into a folder on the import path
(``pip install --target DIR`` with DIR on ``PYTHONPATH``) is, like site-packages, so
graph mode calls its functions as they are instead of converting them as the user's.
(NumPy installed that way had its Python-level functions, ``np.full`` among them,
traced as the user's code.)  A folder of plain modules on the path stays the user's."""

import importlib
import sys

from nbgraph.source.user_code import is_library_code, is_user_code

MODULE = "def helper(x):\n    return x + 1\n"


def _module(folder, name, installed, monkeypatch):
    package = folder / name
    package.mkdir()
    (package / "__init__.py").write_text(MODULE)
    if installed:
        (folder / f"{name}-1.0.dist-info").mkdir()
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module(name)


def test_a_folder_pip_installed_into_holds_library_code(tmp_path, monkeypatch):
    module = _module(tmp_path, "vendored_lib", True, monkeypatch)
    assert is_library_code(module.helper.__code__)
    assert not is_user_code(module.helper.__code__)


def test_a_folder_of_plain_modules_holds_user_code(tmp_path, monkeypatch):
    module = _module(tmp_path, "own_lib", False, monkeypatch)
    assert not is_library_code(module.helper.__code__)
