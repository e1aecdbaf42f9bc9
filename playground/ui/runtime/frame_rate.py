"""How often the window shows a stream's progress: one frame, for the session and the frame loop."""

from __future__ import annotations

__all__ = ["FRAME_MS"]

FRAME_MS = 16  # coalesce widget updates to about one per frame (docs/design.md "Seams and habits")
