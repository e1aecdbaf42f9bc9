"""Every route's request form, one ``Field`` per control: the one place a new control goes.

A ``Field`` (field.py) makes its widget, reads it into the request's parameters and fills it
from a body's parameters (the raw JSON view, a capture, a preset). The chat-like routes' fields
are declared in chat_fields.py, the others' in media_fields.py; which a route gets follows its
descriptor in the route registry (``Route.conversational``)."""

from __future__ import annotations

from playground.protocol.routes import ROUTES
from playground.ui.panels.chat_fields import chat_fields
from playground.ui.panels.field import Field
from playground.ui.panels.media_fields import MEDIA_FIELDS

__all__ = ["FIELDS", "Field"]

FIELDS: dict[str, tuple[Field, ...]] = {
    route.name: chat_fields(route.name) if route.conversational else MEDIA_FIELDS[route.name]
    for route in ROUTES
}
