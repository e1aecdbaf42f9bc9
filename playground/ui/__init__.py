"""The Qt layer: the only package that imports PySide6. It shows state and never parses."""
