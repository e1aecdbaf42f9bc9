"""PySide's source scan of every module imported after it, answered without reading the
playground's own files (startup time).

PySide6 hooks ``import``: each module imported after it, once, has its whole source read
(``inspect.getsource``) to see whether it names PySide6, which decides whether the module's
``from __feature__ import ...`` switches (snake_case, true_property) apply to it. The playground
selects none of them, and about a hundred of its modules load before the window's first frame:
with the standard library's modules they first import, the scan was 13-17 ms of that on a
2-core Xeon, some 5 % of the time to a first frame. For these (no standard module selects a
feature either) the answer is given here: 0, PySide's own names, what the scan finds for a
module that imports PySide6; for one that does not, the -1 it finds makes PySide keep the
selection in force, which is the same 0. Other modules are scanned as before, and where
PySide's internals differ (another version) nothing is changed at all.
"""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["answer_own_modules"]

_MARK = "_playground_own_modules"


def answer_own_modules() -> None:
    """Answer PySide's per-module scan for ``playground.*`` and standard library modules."""
    feature = sys.modules.get("shibokensupport.feature")
    scan = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or not callable(scan) or getattr(scan, _MARK, False):
        return

    def uses_pyside(module: ModuleType) -> bool:
        top = str(getattr(module, "__name__", "")).partition(".")[0]
        if top == "playground" or top in sys.stdlib_module_names:
            return True
        return bool(scan(module))

    setattr(uses_pyside, _MARK, True)
    feature._mod_uses_pyside = uses_pyside  # type: ignore[attr-defined]
