"""Small widgets and helpers, safe for the first frame."""
