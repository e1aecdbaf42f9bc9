"""File ▸ Proxy…: the upstream URL, the port to listen on and a folder for captures."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

__all__ = ["ProxyDialog"]


class ProxyDialog(QDialog):
    """Asks where the proxy forwards to; ``values()`` once accepted."""

    def __init__(self, upstream: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Proxy")
        form = QFormLayout(self)
        self.upstream = QLineEdit(upstream)
        self.upstream.setPlaceholderText("https://gateway.example/v1")
        self.upstream.setToolTip("The gateway every request is forwarded to (its base URL)")
        self.port = QSpinBox()
        self.port.setRange(0, 65535)
        self.port.setSpecialValueText("any free port")
        self.port.setToolTip("The port on 127.0.0.1 your app connects to")
        self.save = QLineEdit()
        self.save.setPlaceholderText("no captures")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.save, 1)
        row.addWidget(browse)
        form.addRow("Upstream URL", self.upstream)
        form.addRow("Listen on 127.0.0.1, port", self.port)
        form.addRow("Save captures to", row)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start proxy")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Save captures to")
        if folder:
            self.save.setText(folder)

    def values(self) -> tuple[str, int, Path | None]:
        save = self.save.text().strip()
        return self.upstream.text().strip(), self.port.value(), Path(save) if save else None
