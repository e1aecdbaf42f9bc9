"""Evaluate: a prompt run over a table of cases and several variants, each cell scored.

No Qt: the window's grid and ``playground eval`` both drive this package and only show its state.
``suite`` reads and checks a suite, ``variables`` fills ``{{name}}``, ``requests`` builds each
cell's request with the transport's one builder, ``cell_run`` sends and decodes one request into
an ``outcome``, ``scorers`` grade it, ``queues`` pace each provider, ``runner`` runs the grid,
``grid`` runs it into a saved experiment, ``experiments`` keeps and compares runs, ``report``
writes results (JSON, JUnit, a table), ``cases_io`` imports and exports cases.
"""
