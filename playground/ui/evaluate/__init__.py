"""The Evaluate window: a suite's editors, the live grid of cells, and saved experiments compared.

It shows the headless engine's state (``playground.evaluate``): the runner scores, the suite
reader checks; nothing here parses or scores.
"""
