"""playground: stream any route of an OpenAI-compatible gateway beside a raw event inspector."""

__version__ = "0.1.0"
