"""Badugi game model and solver.

Sub-packages by concern, each importing only those listed after it:
``arena`` (real one-deck Badugi: simulator, matches), ``tables`` (reading solved
strategies: policies, tables, summaries, charts), ``cfr`` (kernels, walks,
engine, solve loop, checkpoint and strategy files), ``game`` (configs, the
public tree, the strategy layout, the size plan); ``cli`` sits on top.
"""


def load_strategy(directory):
    """The strategy a ``badugi solve`` run wrote to ``directory`` (see :mod:`solver.tables.strategy`)."""
    from .tables.strategy import load_strategy as _load

    return _load(directory)
