"""Runs kept on disk: the per-panel history, code exports and bug-report bundles."""
