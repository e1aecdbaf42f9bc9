"""The conversation thread of the chat, responses and messages panels (view and controller)."""
