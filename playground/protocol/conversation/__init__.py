"""The route-neutral Conversation and its translations to and from each route's wire shape."""

from playground.protocol.conversation.answer import assistant_turn, tool_turn
from playground.protocol.conversation.bodies import (
    CONVERSATION_ROUTES,
    Pasted,
    conversation_file,
    conversation_keys,
    guess_route,
    parse_body,
)
from playground.protocol.conversation.chat import from_chat, to_chat
from playground.protocol.conversation.dump import redact_base64, thread
from playground.protocol.conversation.messages import from_messages, to_messages
from playground.protocol.conversation.model import (
    Conversation,
    Image,
    Part,
    ReasoningItem,
    RedactedThinking,
    Role,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Turn,
    data_url,
    parse_data_url,
    with_text,
)
from playground.protocol.conversation.responses import from_responses, to_responses

__all__ = [
    "CONVERSATION_ROUTES",
    "Conversation",
    "Image",
    "Part",
    "Pasted",
    "ReasoningItem",
    "RedactedThinking",
    "Role",
    "Text",
    "Thinking",
    "ToolCall",
    "ToolResult",
    "Turn",
    "assistant_turn",
    "conversation_file",
    "conversation_keys",
    "data_url",
    "from_chat",
    "from_messages",
    "from_responses",
    "guess_route",
    "parse_body",
    "parse_data_url",
    "redact_base64",
    "thread",
    "to_chat",
    "to_messages",
    "to_responses",
    "tool_turn",
    "with_text",
]
