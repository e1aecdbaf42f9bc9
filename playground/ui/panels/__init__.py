"""The route panels: one RoutePanel class configured per route, with editor, status and banner."""
