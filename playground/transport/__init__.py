"""Moving bytes: httpx streams, provider profiles, secrets (with sim, the only httpx user)."""
