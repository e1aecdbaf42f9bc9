"""The look: Fusion with a dark or light palette that follows the system scheme, and fonts."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

__all__ = ["apply_first_palette", "apply_theme", "is_dark", "mono_font", "muted_color", "tint"]


def _system_prefers_dark() -> bool:
    # Qt 6.5+ reports the platform's scheme; offscreen/unknown platforms say Unknown -> light.
    from PySide6.QtCore import Qt  # its first use builds the namespace's 93 enums: not at import

    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def _platform_palette_is_dark(app: QApplication) -> bool:
    # A dark desktop gives a dark platform palette too (GNOME, KDE, Windows, macOS); reading it
    # needs no enum of the Qt namespace, which the scheme itself (a Qt.ColorScheme) does.
    return app.palette().color(QPalette.ColorRole.Window).lightness() < 128


def _dark_palette() -> QPalette:
    p = QPalette()
    base, window, text = QColor(30, 32, 36), QColor(40, 43, 48), QColor(225, 228, 232)
    p.setColor(QPalette.ColorRole.Window, window)
    p.setColor(QPalette.ColorRole.WindowText, text)
    p.setColor(QPalette.ColorRole.Base, base)
    p.setColor(QPalette.ColorRole.AlternateBase, QColor(36, 38, 43))
    p.setColor(QPalette.ColorRole.ToolTipBase, window)
    p.setColor(QPalette.ColorRole.ToolTipText, text)
    p.setColor(QPalette.ColorRole.Text, text)
    p.setColor(QPalette.ColorRole.Button, QColor(48, 51, 57))
    p.setColor(QPalette.ColorRole.ButtonText, text)
    p.setColor(QPalette.ColorRole.BrightText, QColor(255, 110, 110))
    p.setColor(QPalette.ColorRole.Link, QColor(110, 170, 255))
    p.setColor(QPalette.ColorRole.Highlight, QColor(60, 120, 210))
    p.setColor(QPalette.ColorRole.HighlightedText, QColor(255, 255, 255))
    p.setColor(QPalette.ColorRole.PlaceholderText, QColor(130, 135, 142))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(120, 124, 130))
    return p


def _light_palette() -> QPalette:
    p = QPalette()
    p.setColor(QPalette.ColorRole.Window, QColor(243, 244, 246))
    p.setColor(QPalette.ColorRole.Base, QColor(255, 255, 255))
    p.setColor(QPalette.ColorRole.AlternateBase, QColor(246, 247, 249))
    p.setColor(QPalette.ColorRole.Button, QColor(235, 237, 240))
    p.setColor(QPalette.ColorRole.Highlight, QColor(45, 110, 200))
    p.setColor(QPalette.ColorRole.HighlightedText, QColor(255, 255, 255))
    p.setColor(QPalette.ColorRole.PlaceholderText, QColor(140, 144, 150))
    return p


_dark = False
_connected = False


def is_dark() -> bool:
    """Whether the dark palette is in use (widgets pick banner colours from it)."""
    return _dark


def muted_color() -> QColor:
    return QColor(140, 145, 152) if _dark else QColor(110, 114, 120)


def tint(widget: QWidget, color: str = "gray", *, pixel_size: int | None = None) -> None:
    """``widget``'s text in ``color`` (and ``pixel_size`` pixels high), set on its palette and
    font. Not a style sheet: one of its own gives a widget a style of its own, 13 KB more than
    a palette for a label (measured with mallinfo), kept by every turn of a transcript."""
    palette = widget.palette()
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text):
        palette.setColor(role, QColor(color))
    widget.setPalette(palette)
    if pixel_size is not None:
        font = widget.font()
        font.setPixelSize(pixel_size)
        widget.setFont(font)


def mono_font() -> QFont:
    """The system's fixed-width font (JSON, code, the request's fields that hold it)."""
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def apply_first_palette(app: QApplication, dark: bool | None = None) -> None:
    """The palette of the window's empty first frame, the scheme told by the platform's palette
    (``apply_theme`` right after that frame asks the platform's scheme and sets the style):
    the window appears in its colours at once, with none of the Qt namespace's cost."""
    global _dark
    _dark = _platform_palette_is_dark(app) if dark is None else dark
    app.setPalette(_dark_palette() if _dark else _light_palette())


def apply_theme(app: QApplication, dark: bool | None = None) -> None:
    """Fusion everywhere (the same look on every OS) and a palette matching the system scheme."""
    global _dark
    app.setStyle("Fusion")
    _dark = _system_prefers_dark() if dark is None else dark
    app.setPalette(_dark_palette() if _dark else _light_palette())
    global _connected
    if not _connected:  # follow later changes of the system scheme (once per process)
        _connected = True
        QGuiApplication.styleHints().colorSchemeChanged.connect(lambda _scheme: _follow(app))


def _follow(app: QApplication) -> None:
    apply_theme(app, None)
