"""What a suite is made of: its variants, cases and limits, as plain data (read by suite.py).

Apart from the reader so a scorer that builds a variant of its own (the judge) needs the data and
not the reader, which checks every check through the scorers.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Final

from playground.evaluate.variables import names_in, names_in_value

__all__ = [
    "CONVERSATIONAL_ROUTES",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_RETRIES",
    "MAX_CONCURRENCY",
    "MAX_REPEAT",
    "MAX_VARIANTS",
    "Case",
    "Suite",
    "SuiteError",
    "Variant",
]

# The routes a variant may be on: the ones with a system prompt, a thread and tools.
CONVERSATIONAL_ROUTES: Final = ("chat", "responses", "messages")
MAX_VARIANTS: Final = 6
MAX_REPEAT: Final = 100
MAX_CONCURRENCY: Final = 64
DEFAULT_CONCURRENCY: Final = 4
DEFAULT_RETRIES: Final = 3
# The keys each level may hold (a misspelt one is an error, not a setting quietly ignored).
SUITE_KEYS: Final = frozenset(
    {"name", "description", "variants", "cases", "checks", "repeat", "concurrency", "pass_rate",
     "retries", "pace"}
)  # fmt: skip
VARIANT_KEYS: Final = frozenset(
    {"name", "description", "route", "model", "system", "prompt", "messages", "params", "tools",
     "response_format", "provider", "base_url"}
)  # fmt: skip
CASE_KEYS: Final = frozenset(
    {"id", "description", "vars", "expected", "checks", "fault", "messages"}
)
# Variables every case has without saying so: the judge's prompt reads these two.
BUILTIN_VARIABLES: Final = frozenset({"output", "expected"})


class SuiteError(ValueError):
    """A suite that cannot run; the message says what is wrong and where, in one line."""


@dataclass
class Variant:
    """One column: a whole request template (route, provider, model, system, thread, tools)."""

    name: str
    route: str = "chat"
    model: str = ""
    system: str | None = None
    prompt: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    tools: list[dict[str, Any]] = field(default_factory=list)
    response_format: dict[str, Any] | None = None
    provider: str | None = None  # a provider id (transport/providers.py); None: the simulator
    base_url: str | None = None  # for a provider whose URL the user types

    @property
    def provider_id(self) -> str:
        return self.provider or "simulator"

    def variables(self) -> list[str]:
        """The variables this variant's request uses (system, thread, tools, prompt)."""
        found: dict[str, None] = {}
        for text in (self.system, self.prompt_template):
            found.update(dict.fromkeys(names_in(text)))
        found.update(dict.fromkeys(names_in_value(self.messages)))
        found.update(dict.fromkeys(names_in_value(self.tools)))
        return list(found)

    @property
    def prompt_template(self) -> str | None:
        """The message box: the variant's prompt, else ``{{input}}`` when the thread is empty."""
        if self.prompt is not None:
            return self.prompt
        return None if self.messages else "{{input}}"


@dataclass
class Case:
    """One row: a value per variable, the expected answer, its own checks, a simulator fault."""

    id: str
    vars: dict[str, Any] = field(default_factory=dict)
    expected: str | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)
    fault: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)  # context before the prompt

    def values(self) -> dict[str, Any]:
        """What ``{{name}}`` becomes for this case (``expected`` included)."""
        out = dict(self.vars)
        if self.expected is not None:
            out.setdefault("expected", self.expected)
        return out

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "vars": dict(self.vars)}
        if self.expected is not None:
            out["expected"] = self.expected
        if self.checks:
            out["checks"] = copy.deepcopy(self.checks)
        if self.fault:
            out["fault"] = self.fault
        if self.messages:
            out["messages"] = copy.deepcopy(self.messages)
        return out


@dataclass
class Suite:
    name: str
    variants: list[Variant]
    cases: list[Case]
    checks: list[dict[str, Any]] = field(default_factory=list)
    repeat: int = 1
    concurrency: int = DEFAULT_CONCURRENCY
    pass_rate: float = 1.0  # the share of a cell's repeats that must pass for the suite to pass
    retries: int = DEFAULT_RETRIES  # resends after a 429 or 503, per cell
    pace: str | None = None  # the simulator's X-Sim-Pace for every request
    source: dict[str, Any] = field(default_factory=dict)  # the suite as it was read

    def checks_for(self, case: Case) -> list[dict[str, Any]]:
        return [*self.checks, *case.checks]

    def variant(self, name: str) -> Variant:
        for variant in self.variants:
            if variant.name == name:
                return variant
        raise SuiteError(f"no variant named {name!r} (the suite has {self._names()})")

    def _names(self) -> str:
        return ", ".join(repr(v.name) for v in self.variants)
