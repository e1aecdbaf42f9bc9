"""Usage, cost, the prompt cache and the context window: pure models the window only shows."""
