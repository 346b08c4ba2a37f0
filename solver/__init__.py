"""Badugi game model and solver: configs, the public tree, CFR, strategy tables."""


def load_strategy(directory):
    """The strategy a ``badugi solve`` run wrote to ``directory`` (see :mod:`solver.strategy`)."""
    from .strategy import load_strategy as _load

    return _load(directory)
