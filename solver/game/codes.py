"""The codes a betting round's templates and the public tree use for node kinds, seats and
template actions: the lowest layer of the game package (every other module may read them)."""

BET, DRAW, FOLD, SHOWDOWN = 0, 1, 2, 3   # node kinds
BUTTON, BIG_BLIND = 0, 1                 # seats
CONTINUE = 4   # a template action that ends the round without a fold
