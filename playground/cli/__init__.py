"""Command-line tools that need no window: inspect and export."""
