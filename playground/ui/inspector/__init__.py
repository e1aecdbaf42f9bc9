"""The raw event inspector: timeline model, filter, detail pane, request/response views.

The model and filter (with the stream decoder and its JSON library) load with the first run, from
their own modules: the window's first frame shows the empty timeline without them.
"""
