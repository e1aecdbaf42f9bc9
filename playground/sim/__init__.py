"""The built-in gateway simulator: a real HTTP server on loopback that streams every route."""
