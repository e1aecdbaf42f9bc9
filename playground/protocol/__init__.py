"""The pure protocol layer: bytes to SSE items to route events to StreamState. No Qt, no httpx."""
