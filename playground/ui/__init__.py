"""The Qt layer: the only package that imports PySide6. It shows state and never parses."""

from playground.ui.runtime.pyside_scan import answer_own_modules

answer_own_modules()  # PySide6 already loaded (a host program, a test): see pyside_scan
