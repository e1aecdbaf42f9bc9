"""Regenerate the PNG sizes of the app icon (resources/icons/playground-<N>.png) from its SVG."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The sizes desktops look for in the hicolor theme (menus, docks, the task switcher, HiDPI).
SIZES = (16, 24, 32, 48, 64, 128, 256)


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSize, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    icons = Path(__file__).resolve().parents[1] / "resources" / "icons"
    app = QGuiApplication(sys.argv[:1])  # noqa: F841 - QPainter needs one
    renderer = QSvgRenderer(str(icons / "playground.svg"))
    if not renderer.isValid():
        print("playground.svg does not render", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(QSize(size, size), QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        target = icons / f"playground-{size}.png"
        temporary = target.with_name(f".{target.stem}.tmp.png")  # the suffix names the format
        if not image.save(str(temporary)):
            print(f"cannot write {target}", file=sys.stderr)
            return 1
        temporary.replace(target)
        print(f"{target} ({target.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
