"""The compare window and its diffs."""
