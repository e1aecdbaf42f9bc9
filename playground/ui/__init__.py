"""The Qt layer: the only package that imports PySide6. It shows state and never parses."""

import PySide6  # noqa: F401 - its import hook is set up now: see pyside_scan

from playground.ui.pyside_scan import answer_own_modules

answer_own_modules()
