"""The main window: its shell, and the menus, docks, replay and compare it builds."""
