"""The run machinery of the window: no widgets."""
