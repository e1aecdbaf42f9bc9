"""Write the route tab icons (resources/icons/routes/<route>-<theme>.svg) from their drawings.

Each drawing in scripts/route_icons/ is a 16 px grid in two inks, @INK@ for the outline and
@ACCENT@ for what tells the routes apart at 16 px; each theme gets its own file because Qt's SVG
renderer draws fixed colours (it has no currentColor), and a light outline vanishes on a light tab.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DRAWINGS = ROOT / "scripts" / "route_icons"
TARGET = ROOT / "resources" / "icons" / "routes"

# The inks of each theme: the outline near the theme's text colour, the accent its link colour,
# both at least 4.5:1 against the theme's window colour.
THEMES = {
    "light": {"@INK@": "#3a3f47", "@ACCENT@": "#1f62d0"},
    "dark": {"@INK@": "#d9dde3", "@ACCENT@": "#78adff"},
}


def main() -> int:
    TARGET.mkdir(parents=True, exist_ok=True)
    drawings = sorted(DRAWINGS.glob("*.svg"))
    if not drawings:
        print(f"no drawings in {DRAWINGS}", file=sys.stderr)
        return 1
    for drawing in drawings:
        text = drawing.read_text(encoding="utf-8")
        for theme, inks in THEMES.items():
            themed = text
            for mark, colour in inks.items():
                themed = themed.replace(mark, colour)
            target = TARGET / f"{drawing.stem}-{theme}.svg"
            temporary = target.with_name(f".{target.name}.tmp")
            temporary.write_text(themed, encoding="utf-8")
            temporary.replace(target)
            print(target.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
