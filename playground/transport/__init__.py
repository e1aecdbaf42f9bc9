"""Moving bytes: httpx streams, provider profiles, secrets. The only layer besides sim that imports httpx."""
