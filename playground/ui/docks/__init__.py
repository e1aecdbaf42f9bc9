"""The docks: widgets that follow the current run and emit signals."""
