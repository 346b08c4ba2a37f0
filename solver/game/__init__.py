"""The game model: configs and presets, the public tree and its notation, the strategy layout, the size plan.

Knows nothing of CFR: it says what the game is, how big it is, and where a
strategy is stored.
"""
