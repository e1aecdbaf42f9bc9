"""One module per simulated route: request reading, the streamed frames and the whole answer."""
