"""Provider profiles: base URL, auth style (Bearer, or x-api-key + version) and key env var."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from playground.protocol.requests import ROUTE_NAMES, route_spec

__all__ = [
    "ANTHROPIC_VERSION",
    "PROVIDERS",
    "AuthStyle",
    "Provider",
    "auth_headers",
    "provider_by_id",
    "provider_for_url",
    "url_for",
]

AuthStyle = Literal["bearer", "x-api-key"]

# Anthropic's Messages API requires this header on every request.
ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True)
class Provider:
    """One place to send requests to."""

    id: str
    name: str
    base_url: str  # ends in /v1; "" for the simulator (filled at runtime) and the custom profile
    auth: AuthStyle
    env_var: str | None  # the env var read when the keyring holds no key
    routes: tuple[str, ...] = ROUTE_NAMES
    # Where a provider serves a route at another path than the gateway's (docs/protocol.md §7).
    paths: dict[str, str] = field(default_factory=dict)
    builtin: bool = False  # the in-process simulator: no key needed
    custom_url: bool = False  # the user types the base URL

    def path(self, route: str) -> str:
        return self.paths.get(route) or route_spec(route).path


PROVIDERS: tuple[Provider, ...] = (
    Provider("simulator", "Built-in simulator", "", "bearer", None, builtin=True),
    # The seed pages' gateway ("Streaming": Authorization: Bearer $VULTR_INFERENCE_API_KEY).
    Provider(
        "vultr",
        "Vultr Inference",
        "https://api.vultrinference.com/v1",
        "bearer",
        "VULTR_INFERENCE_API_KEY",
    ),
    Provider(
        "openai",
        "OpenAI",
        "https://api.openai.com/v1",
        "bearer",
        "OPENAI_API_KEY",
        routes=("chat", "responses", "images", "speech", "transcription"),
    ),
    Provider(
        "anthropic",
        "Anthropic",
        "https://api.anthropic.com/v1",
        "x-api-key",
        "ANTHROPIC_API_KEY",
        routes=("messages",),
    ),
    Provider(
        "openrouter",
        "OpenRouter",
        "https://openrouter.ai/api/v1",
        "bearer",
        "OPENROUTER_API_KEY",
        routes=("chat", "responses", "messages", "images"),
        paths={"images": "/images"},  # OR-DOCS: POST /api/v1/images
    ),
    Provider("custom", "Custom base URL", "", "bearer", "PLAYGROUND_API_KEY", custom_url=True),
)


def provider_by_id(provider_id: str) -> Provider:
    """The profile called ``provider_id``; KeyError names the known ids."""
    for provider in PROVIDERS:
        if provider.id == provider_id:
            return provider
    raise KeyError(f"unknown provider {provider_id!r}; known: {', '.join(p.id for p in PROVIDERS)}")


def provider_for_url(url: str) -> Provider:
    """The profile whose base URL starts ``url``, else the custom profile (for exports)."""
    for provider in PROVIDERS:
        if provider.base_url and url.startswith(provider.base_url):
            return provider
    return provider_by_id("custom")


def auth_headers(provider: Provider, key: str | None) -> dict[str, str]:
    """The headers that carry ``key`` the way ``provider`` expects; none without a key."""
    if provider.auth == "x-api-key":
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if key:
            headers["x-api-key"] = key
        return headers
    return {"Authorization": f"Bearer {key}"} if key else {}


def url_for(provider: Provider, route: str, base_url: str | None = None) -> str:
    """The full URL of ``route`` at ``provider`` (``base_url`` overrides the profile's)."""
    base = (base_url or provider.base_url).rstrip("/")
    if not base:
        raise ValueError(f"{provider.name} needs a base URL")
    return base + provider.path(route)
