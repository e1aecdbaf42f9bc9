"""Evaluate: a prompt run over a table of cases and several variants, each cell scored.

No Qt: the window's grid and ``playground eval`` both drive this package and only show its state.
``suite`` reads and checks a suite, ``variables`` fills ``{{name}}``, ``requests`` builds each
cell's request with the transport's one builder, ``scorers`` grade a finished cell, ``runner``
runs the grid, ``experiments`` keeps and compares runs, ``cases_io`` imports and exports cases.
"""
