"""Settings: API keys per provider (keyring, else memory; never QSettings), stream timeouts and
the price table (price_editor.py)."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from playground.transport.providers import PROVIDERS, Provider
from playground.ui.runtime.timeouts import (
    FIRST_BYTE_RANGE,
    STALL_RANGE,
    first_byte_timeout,
    stall_seconds,
)

__all__ = ["SettingsDialog", "first_byte_timeout", "stall_seconds"]


def _note_width(label: QLabel) -> int:
    """Room for the longest one-line note of any provider's row (see ``_KeyRow.refresh``)."""
    notes = ["stored in the keyring", "none"]
    for provider in PROVIDERS:
        if provider.env_var:
            notes += [f"from ${provider.env_var}", f"none (or set ${provider.env_var})"]
    metrics = label.fontMetrics()
    return max(180, *(metrics.horizontalAdvance(note) + 4 for note in notes))


class _KeyRow(QWidget):
    """One provider's key: a password field, where the key comes from, Save and Forget."""

    def __init__(self, provider: Provider) -> None:
        super().__init__()
        self.provider = provider
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.edit = QLineEdit()
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.edit.setPlaceholderText("paste a key to store it in the system keyring")
        self.edit.setMinimumWidth(
            self.edit.fontMetrics().horizontalAdvance("paste a key to st") + 20
        )
        self.save = QPushButton("Save")
        self.forget = QPushButton("Forget")
        self.note = QLabel()
        # One width on every row, the widest note any row can show: the key fields beside it
        # then line up at one width (each row's own note made them uneven).
        self.note.setFixedWidth(_note_width(self.note))
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.save)
        layout.addWidget(self.forget)
        layout.addWidget(self.note)
        self.save.clicked.connect(self._save)
        self.forget.clicked.connect(self._forget)
        self.refresh()

    def refresh(self) -> None:
        from playground.transport.secrets import NO_KEYRING_NOTE, key_source

        source = key_source(self.provider)
        env = self.provider.env_var
        self.note.setWordWrap(source == "memory")
        self.note.setText(
            {
                "keyring": "stored in the keyring",
                "memory": NO_KEYRING_NOTE,
                "env": f"from ${env}",
            }.get(source or "", f"none (or set ${env})" if env else "none")
        )

    def _save(self) -> None:
        from playground.transport.secrets import SecretStoreError, set_key

        key = self.edit.text().strip()
        if not key:
            return
        try:
            set_key(self.provider, key)  # no keyring: kept in memory, and refresh() says so
        except SecretStoreError as exc:
            self.note.setText(str(exc))
            self.note.setWordWrap(True)
        else:
            self.refresh()
        finally:
            self.edit.clear()  # the key does not linger in the widget

    def _forget(self) -> None:
        from playground.transport.secrets import SecretStoreError, delete_key

        try:
            delete_key(self.provider)
        except SecretStoreError as exc:
            self.note.setText(str(exc))
        else:
            self.refresh()


class SettingsDialog(QDialog):
    """Keys go to the keyring (memory when there is none), env vars as fallback; timeouts to
    QSettings."""

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        layout = QVBoxLayout(self)
        keys = QGroupBox(
            "API keys (in the system keyring, or in memory until you quit where there is none; "
            "never in settings files)"
        )
        form = QFormLayout(keys)
        self.rows: dict[str, _KeyRow] = {}
        for provider in PROVIDERS:
            if provider.builtin:
                continue
            row = _KeyRow(provider)
            self.rows[provider.id] = row
            form.addRow(provider.name, row)
        layout.addWidget(keys)
        times = QGroupBox("Timeouts")
        tform = QFormLayout(times)
        self.stall = QDoubleSpinBox()
        self.stall.setRange(*STALL_RANGE)
        self.stall.setSuffix(" s")
        self.stall.setValue(stall_seconds(settings))
        self.stall.setToolTip("Warn (and offer Stop) when a stream sends nothing for this long")
        tform.addRow("Stall warning after", self.stall)
        self.first_byte = QDoubleSpinBox()
        self.first_byte.setRange(*FIRST_BYTE_RANGE)
        self.first_byte.setSuffix(" s")
        self.first_byte.setValue(first_byte_timeout(settings))
        tform.addRow("First byte timeout", self.first_byte)
        layout.addWidget(times)
        from playground.runs.prices import load_prices
        from playground.ui.window.price_editor import PriceEditor

        # The gateway's own prices, read-only beside the file's: the window's last model list.
        gateway = getattr(getattr(parent, "provider_bar", None), "model_info", None)
        self.prices = PriceEditor(
            load_prices().table, gateway if isinstance(gateway, dict) else None
        )
        group = QGroupBox("Prices (saved in the data folder's prices.json)")
        QVBoxLayout(group).addWidget(self.prices)
        layout.addWidget(group, 1)
        # Only here: its class (and its Python enums) loads when a dialog is first opened.
        from PySide6.QtWidgets import QDialogButtonBox

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(max(880, self.sizeHint().width()), 660)

    def accept(self) -> None:
        if not self.prices.save():  # a cell that is not a price: the dialog stays, saying so
            return
        self.settings.setValue("stall_seconds", self.stall.value())
        self.settings.setValue("first_byte_timeout", self.first_byte.value())
        super().accept()
