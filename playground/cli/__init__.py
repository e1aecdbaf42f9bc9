"""Command-line tools that need no window: inspect, export and eval."""
