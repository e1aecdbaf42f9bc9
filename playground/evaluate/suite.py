"""The suite: variants, cases and checks read from JSON, checked, each mistake named with its place.

The shape is the headless contract (docs/evaluate.md): ``{"name", "variants": [...], "cases":
[...], "checks": [...], "repeat", "concurrency"}``, plus ``pass_rate`` (the share of a cell's
repeats that must pass), ``retries`` (after a 429 or 503) and ``pace`` (the simulator's pace).
YAML is not read: no YAML library is a dependency, and JSON is what the contract promises.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from playground.evaluate.model import (
    BUILTIN_VARIABLES,
    CASE_KEYS,
    CONVERSATIONAL_ROUTES,
    DEFAULT_CONCURRENCY,
    DEFAULT_RETRIES,
    MAX_CONCURRENCY,
    MAX_REPEAT,
    MAX_VARIANTS,
    SUITE_KEYS,
    VARIANT_KEYS,
    Case,
    Suite,
    SuiteError,
    Variant,
)
from playground.evaluate.variables import names_in_value
from playground.protocol import safe_json

__all__ = [
    "CONVERSATIONAL_ROUTES",
    "Case",
    "Suite",
    "SuiteError",
    "Variant",
    "load_suite",
    "parse_suite",
]

def load_suite(path: Path) -> Suite:
    """Read and check a suite file; SuiteError says what is wrong and where."""
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise SuiteError(f"{path}: cannot be read ({exc.strerror or 'I/O error'})") from None
    try:
        data = safe_json.loads(text)
    except ValueError as exc:
        raise SuiteError(f"{path}: not valid JSON ({exc})") from None
    try:
        return parse_suite(data)
    except SuiteError as exc:
        raise SuiteError(f"{path}: {exc}") from None


def parse_suite(data: Any) -> Suite:
    """A Suite from its JSON value; SuiteError names the first mistake and its place."""
    reader = _Reader()
    suite = reader.suite(data)
    reader.check_variables(suite)
    return suite


class _Reader:
    """Reads one field at a time; each mistake becomes a SuiteError with its JSON path."""

    def suite(self, data: Any) -> Suite:
        top = self.obj(data, "the suite")
        self.known(top, SUITE_KEYS, "")
        variants = [
            self.variant(v, f"variants[{i}]")
            for i, v in enumerate(self.items(top, "variants", "the suite"))
        ]
        if not variants:
            raise SuiteError("variants: at least one variant is needed")
        if len(variants) > MAX_VARIANTS:
            raise SuiteError(f"variants: at most {MAX_VARIANTS} variants, not {len(variants)}")
        self.unique([v.name for v in variants], "variants", "name")
        cases = [
            self.case(c, f"cases[{i}]") for i, c in enumerate(self.items(top, "cases", "the suite"))
        ]
        if not cases:
            raise SuiteError("cases: at least one case is needed")
        self.unique([c.id for c in cases], "cases", "id")
        checks = self.checks(top.get("checks"), "checks")
        return Suite(
            name=self.text(top.get("name", "suite"), "name") or "suite",
            variants=variants,
            cases=cases,
            checks=checks,
            repeat=self.number(top.get("repeat", 1), "repeat", 1, MAX_REPEAT),
            concurrency=self.number(
                top.get("concurrency", DEFAULT_CONCURRENCY), "concurrency", 1, MAX_CONCURRENCY
            ),
            pass_rate=self.rate(top.get("pass_rate", 1.0), "pass_rate"),
            retries=self.number(top.get("retries", DEFAULT_RETRIES), "retries", 0, 20),
            pace=self.optional_text(top.get("pace"), "pace"),
            source=copy.deepcopy(top),
        )

    def variant(self, data: Any, where: str) -> Variant:
        v = self.obj(data, where)
        self.known(v, VARIANT_KEYS, f"{where}.")
        name = self.text(v.get("name"), f"{where}.name")
        if not name:
            raise SuiteError(f"{where}.name: a variant needs a name")
        route = v.get("route", "chat")
        if route not in CONVERSATIONAL_ROUTES:
            raise SuiteError(
                f"{where}.route: {route!r} is not one of {', '.join(CONVERSATIONAL_ROUTES)}"
            )
        provider = self.optional_text(v.get("provider"), f"{where}.provider")
        if provider is not None:
            from playground.transport.providers import PROVIDERS

            known = [p.id for p in PROVIDERS]
            if provider not in known:
                raise SuiteError(
                    f"{where}.provider: {provider!r} is not a provider ({', '.join(known)})"
                )
        fmt = v.get("response_format")
        if fmt is not None and not isinstance(fmt, dict):
            raise SuiteError(f"{where}.response_format: an object or null")
        params = v.get("params") or {}
        if not isinstance(params, dict):
            raise SuiteError(f"{where}.params: an object of request parameters")
        return Variant(
            name=name,
            route=route,
            model=self.text(v.get("model", ""), f"{where}.model"),
            system=self.optional_text(v.get("system"), f"{where}.system"),
            prompt=self.optional_text(v.get("prompt"), f"{where}.prompt"),
            messages=self.turns(v.get("messages"), f"{where}.messages"),
            params=dict(params),
            tools=self.tools(v.get("tools"), f"{where}.tools"),
            response_format=fmt,
            provider=provider,
            base_url=self.optional_text(v.get("base_url"), f"{where}.base_url"),
        )

    def case(self, data: Any, where: str) -> Case:
        c = self.obj(data, where)
        self.known(c, CASE_KEYS, f"{where}.")
        case_id = c.get("id")
        if isinstance(case_id, int) and not isinstance(case_id, bool):
            case_id = str(case_id)
        case_id = self.text(case_id, f"{where}.id")
        if not case_id:
            raise SuiteError(f"{where}.id: a case needs an id")
        variables = c.get("vars") or {}
        if not isinstance(variables, dict):
            raise SuiteError(f"{where}.vars: an object of variable values")
        expected = c.get("expected")
        if expected is not None and not isinstance(expected, str):
            raise SuiteError(f"{where}.expected: text or null")
        fault = self.optional_text(c.get("fault"), f"{where}.fault")
        if fault is not None:
            from playground.sim.fault_names import FAULTS

            if fault not in FAULTS:
                raise SuiteError(f"{where}.fault: {fault!r} is not a simulator fault")
        return Case(
            id=case_id,
            vars={str(k): val for k, val in variables.items()},
            expected=expected,
            checks=self.checks(c.get("checks"), f"{where}.checks"),
            fault=None if fault == "none" else fault,
            messages=self.turns(c.get("messages"), f"{where}.messages"),
        )

    def checks(self, data: Any, where: str) -> list[dict[str, Any]]:
        from playground.evaluate.scorers import check_problem

        if data is None:
            return []
        if not isinstance(data, list):
            raise SuiteError(f"{where}: a list of checks")
        out = []
        for i, check in enumerate(data):
            problem = check_problem(check)
            if problem is not None:
                raise SuiteError(f"{where}[{i}]{problem}")
            out.append(copy.deepcopy(check))
        return out

    def check_variables(self, suite: Suite) -> None:
        """Every variable a variant or a check uses has a value in every case."""
        for variant in suite.variants:
            used = variant.variables()
            for i, case in enumerate(suite.cases):
                missing = [n for n in used if n not in case.values()]
                if missing:
                    raise SuiteError(
                        f"cases[{i}] ({case.id}): no value for "
                        f"{', '.join('{{' + n + '}}' for n in missing)}, used by variant "
                        f"{variant.name!r}"
                    )
        for i, case in enumerate(suite.cases):
            for j, check in enumerate(suite.checks_for(case)):
                if check.get("type") == "llm_judge":
                    continue  # the judge's prompt also reads {{output}}, filled after the run
                known = case.values().keys() | BUILTIN_VARIABLES
                missing = [n for n in names_in_value(check) if n not in known]
                if missing:
                    raise SuiteError(
                        f"cases[{i}] ({case.id}): check {j} ({check.get('type')}) uses "
                        f"{', '.join('{{' + n + '}}' for n in missing)}, which the case has no "
                        "value for"
                    )

    # -- one value -----------------------------------------------------------------------------
    @staticmethod
    def known(value: dict[str, Any], keys: frozenset[str], where: str) -> None:
        unknown = sorted(set(value) - keys)
        if unknown:
            raise SuiteError(
                f"{where}{unknown[0]}: not a key here (known: {', '.join(sorted(keys))})"
            )

    @staticmethod
    def obj(data: Any, where: str) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise SuiteError(f"{where}: an object, not {_kind(data)}")
        return data

    @staticmethod
    def items(top: dict[str, Any], key: str, where: str) -> list[Any]:
        value = top.get(key)
        if not isinstance(value, list):
            raise SuiteError(f"{key}: {where} needs a list of {key}")
        return value

    @staticmethod
    def text(value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise SuiteError(f"{where}: text, not {_kind(value)}")
        return value

    def optional_text(self, value: Any, where: str) -> str | None:
        return None if value is None else self.text(value, where)

    @staticmethod
    def number(value: Any, where: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise SuiteError(f"{where}: a whole number from {low} to {high}, not {value!r}")
        return value

    @staticmethod
    def rate(value: Any, where: str) -> float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not 0.0 <= float(value) <= 1.0:
            raise SuiteError(f"{where}: a number from 0 to 1, not {value!r}")
        return float(value)

    @staticmethod
    def turns(value: Any, where: str) -> list[dict[str, Any]]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise SuiteError(f"{where}: a list of turns")
        for i, turn in enumerate(value):
            if not isinstance(turn, dict) or not isinstance(turn.get("role"), str):
                raise SuiteError(f"{where}[{i}]: a turn is an object with a role and content")
        return copy.deepcopy(value)

    @staticmethod
    def tools(value: Any, where: str) -> list[dict[str, Any]]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise SuiteError(f"{where}: a list of function tools")
        for i, tool in enumerate(value):
            function = tool.get("function") if isinstance(tool, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise SuiteError(
                    f'{where}[{i}]: a tool is {{"type": "function", "function": '
                    '{"name", "description", "parameters"}}'
                )
        return copy.deepcopy(value)

    @staticmethod
    def unique(names: list[str], where: str, key: str) -> None:
        seen: set[str] = set()
        for i, name in enumerate(names):
            if name in seen:
                raise SuiteError(f"{where}[{i}].{key}: {name!r} is used twice")
            seen.add(name)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "text", bool: "true/false"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )
