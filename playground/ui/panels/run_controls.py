"""A route panel's run controls: the simulator's pickers (fault, pace, answer length) and the Stop
and Send buttons, in one widget the panel places (under the form, or in a transcript's composer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from playground.sim.fault_names import faults_for
from playground.ui.panels.sim_pickers import LENGTH_ROUTES, PACES, SIM_LENGTHS

if TYPE_CHECKING:
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["build_controls"]


def build_controls(panel: RoutePanel, route: str) -> QWidget:
    """The simulator's pickers (fault, pace, length) and the Stop and Send buttons."""
    controls = QWidget()
    controls_layout = QVBoxLayout(controls)
    controls_layout.setContentsMargins(0, 0, 0, 0)
    row = QHBoxLayout()
    panel.fault_label = QLabel("Fault")
    panel.fault = QComboBox()
    for fault in faults_for(route):  # only the faults that act on this route
        panel.fault.addItem("no fault" if fault == "none" else fault, fault)
    panel.fault.setToolTip("The built-in simulator can break this stream on purpose (X-Sim-Fault)")
    row.addWidget(panel.fault_label)
    row.addWidget(panel.fault, 1)
    panel.pace = QComboBox()
    for pace in PACES:
        panel.pace.addItem(pace, pace)
    for combo in (panel.fault, panel.pace):  # they give way (elided) in a narrow window
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(5)
    panel.pace.setToolTip("How fast the simulator streams (X-Sim-Pace)")
    row.addWidget(panel.pace)
    panel.length = QComboBox()
    for title, tokens in SIM_LENGTHS:
        panel.length.addItem(title, tokens)
    panel.length.setSizeAdjustPolicy(
        QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
    )
    # Room for "16k tokens" whole (the fault picker beside it gives way first).
    panel.length.setMinimumContentsLength(max(len(title) for title, _n in SIM_LENGTHS))
    panel.length.setToolTip(
        "How long the simulator's answer is, in tokens (X-Sim-Tokens); any length: its natural one"
    )
    panel.length.setVisible(route in LENGTH_ROUTES)
    row.addWidget(panel.length)
    controls_layout.addLayout(row)
    # Stop and Send get a row of their own: beside the pickers they set the panel's minimum
    # width past what a 1024 px window has for it next to the inspector.
    row = QHBoxLayout()
    row.addStretch(1)
    panel.stop_button = QPushButton("Stop")
    panel.stop_button.setIcon(panel.style().standardIcon(QStyle.StandardPixmap.SP_MediaStop))
    panel.stop_button.setToolTip("Stop the stream and close the connection (Esc)")
    panel.stop_button.setEnabled(False)
    panel.send_button = QPushButton("Send")
    panel.send_button.setIcon(panel.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
    panel.send_button.setToolTip("Send the request (Ctrl+Enter)")
    panel.send_button.setDefault(True)
    row.addWidget(panel.stop_button)
    row.addWidget(panel.send_button)
    controls_layout.addLayout(row)
    return controls
