"""Route decoders, one module per route: wire events in, the project's vocabulary out.

Each route's descriptor (``protocol/routes/<name>.py``) names its decoder here by module path, so
a module loads only when a stream of its route starts.
"""
