"""The route panels: one RoutePanel class configured per route, with its editor, status line and banner."""
