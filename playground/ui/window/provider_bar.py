"""The provider bar: profile, base URL, model picker (GET /v1/models); remembered in QSettings."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QStyle,
    QToolButton,
    QWidget,
)

from playground.transport.providers import PROVIDERS, Provider, auth_headers, provider_by_id
from playground.ui.runtime import lazy

if TYPE_CHECKING:
    import asyncio

    from playground.protocol.accounting.models_meta import ModelInfo

__all__ = [
    "DEFAULT_MODELS",
    "ProviderBar",
    "default_model",
    "model_routes",
    "models_for_route",
    "parse_models",
]

# Shown before /v1/models answers (and when it cannot): a sensible model per provider and route.
DEFAULT_MODELS: dict[str, dict[str, str]] = {
    "simulator": {
        "chat": "sim-reasoner",
        "responses": "sim-reasoner",
        "messages": "sim-reasoner",
        "images": "sim-image",
        "speech": "sim-tts",
        "transcription": "sim-transcribe",
        "music": "sim-music",
    },
    "vultr": {"*": "deepseek-v4.1-flash"},
    "openai": {
        "*": "gpt-4o-mini",
        "images": "gpt-image-1",
        "speech": "gpt-4o-mini-tts",
        "transcription": "gpt-4o-transcribe",
    },
    "anthropic": {"*": "claude-sonnet-4-5"},
    "openrouter": {"*": "openai/gpt-4o-mini"},
    "custom": {"*": ""},
}


def default_model(provider_id: str, route: str) -> str:
    table = DEFAULT_MODELS.get(provider_id, {})
    return table.get(route, table.get("*", ""))


def parse_models(payload: Any) -> list[str]:
    """Model ids from an OpenAI list ({data:[{id}]}), OpenRouter's, or a bare list of ids."""
    data = payload.get("data") if isinstance(payload, dict) else payload
    out: list[str] = []
    if isinstance(data, list):
        for entry in data:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                out.append(entry["id"])
            elif isinstance(entry, str):
                out.append(entry)
    return out


_TEXT_ROUTES = frozenset({"chat", "responses", "messages"})
ModelEntry = tuple[str, frozenset[str] | None]  # a model id and the routes it serves, if said


def _strings(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _routes_of(entry: dict[str, Any]) -> frozenset[str] | None:
    """The routes a /v1/models entry says it serves: its ``routes`` (the simulator's list), else
    what its modalities imply (OpenRouter's ``architecture``, docs/protocol.md §7: text out serves
    the chat-like routes, image out images, audio out speech and music, audio in transcription);
    None when it says neither (then it is listed on every route)."""
    routes = _strings(entry.get("routes"))
    if routes:
        return frozenset(routes)
    arch = entry.get("architecture")
    if not isinstance(arch, dict):
        return None
    ins, outs = _strings(arch.get("input_modalities")), _strings(arch.get("output_modalities"))
    if not outs:
        return None
    served: set[str] = set()
    if "text" in outs:
        served |= {"transcription"} if "audio" in ins and "text" not in ins else _TEXT_ROUTES
    if "image" in outs:
        served.add("images")
    if "audio" in outs:
        served |= {"speech", "music"}
    return frozenset(served)


def model_routes(payload: Any) -> list[ModelEntry]:
    """Each model of a models list (``parse_models``' shapes) with the routes it serves."""
    data = payload.get("data") if isinstance(payload, dict) else payload
    out: list[ModelEntry] = []
    if isinstance(data, list):
        for entry in data:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                out.append((entry["id"], _routes_of(entry)))
            elif isinstance(entry, str):
                out.append((entry, None))
    return out


def models_for_route(entries: list[ModelEntry], route: str) -> list[str]:
    """The models that serve ``route``: those that say so, and those that say nothing."""
    return [name for name, routes in entries if routes is None or route in routes]


def models_failure(url: str, status: int, listed: bool) -> str:
    """Why GET ``url`` gave no model list, in a sentence that says what to do ("" if it did)."""
    path = urlsplit(url).path or "/models"
    if status == 200:
        return "" if listed else f"{path} answered with no model list: type a model name"
    if status in (404, 405, 501):
        return f"This server has no {path} (HTTP {status}): type a model name"
    if status in (401, 403):
        return f"The model list was refused (HTTP {status}): check the API key, or type a name"
    return f"The model list failed (HTTP {status}): type a model name"


class ProviderBar(QWidget):
    """Which provider, which base URL, which model; ``changed`` fires when any of them changes."""

    changed = Signal()
    settingsRequested = Signal()
    modelsLoaded = Signal(list)
    modelsFailed = Signal(str)  # why the model list could not be had, one sentence

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.simulator_url = ""
        self.models_pending = False  # load_models() was asked for before an asyncio loop ran
        self.route = "chat"  # the current panel's route: each route remembers its own model
        self._models_task: asyncio.Task[None] | None = None
        self.models: list[ModelEntry] = []  # the last /v1/models list, each with its routes
        self.models_note = ""  # why the last model list failed ("" when it came)
        # What the same list says of each model's context, prices and prompt cache.
        self.model_info: dict[str, ModelInfo] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(QLabel("Provider"))
        self.provider_combo = QComboBox()
        for provider in PROVIDERS:
            self.provider_combo.addItem(provider.name, provider.id)
        self.provider_combo.setToolTip("Where requests go; the built-in simulator needs no account")
        layout.addWidget(self.provider_combo)
        self.base_url_edit = QLineEdit()
        self.base_url_edit.setPlaceholderText("https://host/v1")
        self.base_url_edit.setMinimumWidth(260)
        self.base_url_edit.setToolTip("Base URL ending in /v1")
        layout.addWidget(self.base_url_edit, 2)
        layout.addWidget(QLabel("Model"))
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setMinimumWidth(220)
        self.model_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.model_combo.setToolTip("Any model name; the list comes from GET /v1/models")
        layout.addWidget(self.model_combo, 1)
        self.refresh_button = QToolButton()
        self.refresh_button.setIcon(
            self.style().standardIcon(QStyle.StandardPixmap.SP_BrowserReload)
        )
        self.refresh_button.setToolTip("Reload the model list (GET /v1/models)")
        layout.addWidget(self.refresh_button)
        self.settings_button = QToolButton()
        self.settings_button.setIcon(
            self.style().standardIcon(QStyle.StandardPixmap.SP_FileDialogDetailedView)
        )
        self.settings_button.setToolTip("API keys and timeouts")
        layout.addWidget(self.settings_button)
        self.key_label = QLabel()
        layout.addWidget(self.key_label)

        self._restore()
        self.provider_combo.currentIndexChanged.connect(self._provider_changed)
        self.base_url_edit.editingFinished.connect(self._base_url_changed)
        self.model_combo.currentTextChanged.connect(self._model_changed)
        self.refresh_button.clicked.connect(self.load_models)
        self.settings_button.clicked.connect(self.settingsRequested.emit)

    # ---- what the window reads ---
    def provider(self) -> Provider:
        return provider_by_id(self.provider_combo.currentData() or "simulator")

    def base_url(self) -> str:
        provider = self.provider()
        if provider.builtin:
            return self.simulator_url
        return self.base_url_edit.text().strip() or provider.base_url

    def model(self) -> str:
        return self.model_combo.currentText().strip()

    def set_provider(self, provider_id: str) -> None:
        i = self.provider_combo.findData(provider_id)
        if i >= 0:
            self.provider_combo.setCurrentIndex(i)

    def model_for(self, route: str) -> str:
        """The model remembered for ``route`` on the current provider, else a sensible default."""
        provider = self.provider()
        saved = self.settings.value(f"model/{provider.id}/{route}", "")
        # A settings file edited by hand may hold a list or a number here: the default then.
        return saved if isinstance(saved, str) and saved else default_model(provider.id, route)

    def set_route(self, route: str) -> None:
        """The current panel changed: list the models that serve its route, show its model."""
        self.route = route
        self._fill(self.model_for(route))

    def route_models(self) -> list[str]:
        """What the picker lists for the current route (empty before /v1/models answered)."""
        return models_for_route(self.models, self.route)

    def _fill(self, current: str) -> None:
        combo = self.model_combo
        combo.blockSignals(True)
        try:
            names = self.route_models()
            if names and [combo.itemText(i) for i in range(combo.count())] != names:
                combo.clear()
                combo.addItems(names)
            combo.setCurrentText(current)
        finally:
            combo.blockSignals(False)

    def show_sent(self, route: str, model: str) -> None:
        """A panel's body now names ``model`` (typed in its JSON view, a run reopened): the box
        shows it, and it is remembered for ``route``, so the box always says what is sent."""
        key = f"model/{self.provider().id}/{route}"
        if not model or (
            str(self.settings.value(key, "") or "") == model and self.model() == model
        ):
            return
        self.settings.setValue(key, model)
        if route == self.route and self.model() != model:
            self._fill(model)

    def set_model(self, model: str) -> None:
        self.model_combo.setCurrentText(model)

    def set_simulator_url(self, url: str) -> None:
        self.simulator_url = url
        if self.provider().builtin:
            self.base_url_edit.setText(url)

    # ---- persistence (QSettings: provider, model, base URL — never a key) -----------
    def _restore(self) -> None:
        provider_id = str(self.settings.value("provider", "simulator") or "simulator")
        try:
            provider_by_id(provider_id)
        except KeyError:
            provider_id = "simulator"
        self.provider_combo.setCurrentIndex(max(0, self.provider_combo.findData(provider_id)))
        self._show_provider()

    def _show_provider(self) -> None:
        provider = self.provider()
        self.base_url_edit.setReadOnly(not provider.custom_url)
        saved_url = self.settings.value(f"base_url/{provider.id}", "")
        saved_url = saved_url if isinstance(saved_url, str) else ""
        if provider.builtin:
            self.base_url_edit.setText(self.simulator_url)
            self.base_url_edit.setToolTip("The built-in simulator on loopback")
        else:
            self.base_url_edit.setText(saved_url or provider.base_url)
            self.base_url_edit.setToolTip("Base URL ending in /v1")
        model = str(self.model_for(self.route))
        self.models = []  # another provider's list says nothing of this one's models
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        if model:
            self.model_combo.addItem(model)
        self.model_combo.setCurrentText(model)
        self.model_combo.blockSignals(False)
        self.update_key_label()

    def update_key_label(self) -> None:
        provider = self.provider()
        if provider.builtin:
            self.key_label.setText("no key needed")
            return
        from playground.transport.secrets import key_source

        source = key_source(provider)
        self.key_label.setText(
            {
                "keyring": "key: keyring",
                "memory": "key: until you quit",
                "env": f"key: ${provider.env_var}",
            }.get(source or "", "no key")
        )

    def _provider_changed(self) -> None:
        self.settings.setValue("provider", self.provider().id)
        self._show_provider()
        self.changed.emit()
        self.load_models()

    def _base_url_changed(self) -> None:
        provider = self.provider()
        if provider.custom_url:
            self.settings.setValue(f"base_url/{provider.id}", self.base_url_edit.text().strip())
            self.changed.emit()

    def _model_changed(self, text: str) -> None:
        self.settings.setValue(f"model/{self.provider().id}/{self.route}", text.strip())
        self.changed.emit()

    # ---- GET /v1/models ---
    def load_models(self) -> None:
        """Fill the model picker from GET {base}/models in the background (the UI never waits)."""
        if self._models_task is not None and not self._models_task.done():
            self._models_task.cancel()
        base = self.base_url()
        if not base:
            return
        loop = lazy.running_loop()
        if loop is None:
            # No asyncio loop runs yet (a test building the window, or the app before its first
            # frame): whoever starts one asks again (see models_pending).
            self.models_pending = True
            return
        self.models_pending = False
        self._models_task = loop.create_task(self._fetch_models(self.provider(), base))

    async def _fetch_models(self, provider: Provider, base: str) -> None:
        from playground.protocol.accounting.models_meta import models_info
        from playground.transport.client import make_client

        key = None
        if not provider.builtin:
            from playground.transport.secrets import get_key

            key = get_key(provider)
        client = make_client(5.0)
        url = base.rstrip("/") + "/models"
        entries: list[ModelEntry] = []
        try:
            response = await client.get(url, headers=auth_headers(provider, key), timeout=10.0)
            payload = response.json() if response.status_code == 200 else None
            entries = model_routes(payload) if payload is not None else []
            info = models_info(payload)
            note = models_failure(url, response.status_code, bool(entries))
        except Exception as exc:  # (a cancellation is no Exception: it goes on up)
            # The picker stays editable; the reason goes to the status bar, not a banner. The
            # exception's class only: its text may quote the URL's query or a header.
            note = f"Could not read the model list ({type(exc).__name__}): type a model name"
            entries, info = [], {}
        finally:
            with contextlib.suppress(Exception):
                await client.aclose()
        if self.provider().id == provider.id:
            self.models_note = note
            self.refresh_button.setToolTip(
                f"Reload the model list (GET /v1/models)\n{note}"
                if note
                else "Reload the model list (GET /v1/models)"
            )
            if note:
                self.modelsFailed.emit(note)
        if entries and self.provider().id == provider.id:
            self.models = entries
            self.model_info = info
            current = self.model()
            names = self.route_models()
            self._fill(current or (names[0] if names else ""))
            if not current and names:
                self._model_changed(names[0])
        self.modelsLoaded.emit([name for name, _routes in entries])

    async def models_settled(self, timeout: float = 5.0) -> None:
        """Wait (up to ``timeout`` s) for a models list being fetched: the headless dump prices
        and judges the cache with what it says."""
        task = self._models_task
        if task is not None and not task.done():
            await lazy.settle(task, timeout, quiet=True)

    async def aclose(self) -> None:
        task = self._models_task
        if task is not None and not task.done():
            task.cancel()
            await lazy.settle(task, 2.0, quiet=True)
