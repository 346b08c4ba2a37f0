"""Hands of fixed-limit Badugi made by PokerKit's own engine, as a PHH file (``badugi review``'s
benchmark input: issue 57).

    python scripts/bench/pokerkit_hands.py --hands 1000 --out runs/pokerkit-1000.phhs

Two players act at random among PokerKit's legal moves (fold a sixth of the time when facing a
bet, raise a quarter of the time when it may, otherwise check or call; at a draw, throw each card
with probability one half), PokerKit deals every card from its shuffled deck, and each hand is
written by PokerKit (``HandHistory.from_game_state``): its actions on one line, as PokerKit writes
them. Needs PokerKit (``pip install -e '.[phh]'``).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path


def make_hands(count: int, seed: int) -> list[str]:
    from pokerkit import Automation, FixedLimitBadugi, HandHistory

    rng = random.Random(seed)
    automations = (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
                   Automation.CARD_BURNING, Automation.HOLE_DEALING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
                   Automation.HAND_KILLING, Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING)
    game = FixedLimitBadugi(automations, True, 0, (1, 2), 2, 4)
    texts = []
    for i in range(count):
        random.seed(rng.getrandbits(64))   # (PokerKit shuffles its deck with the random module)
        state = game((2000, 2000), 2)
        while state.status:
            if state.can_stand_pat_or_discard():
                hand = list(state.hole_cards[state.stand_patter_or_discarder_index])
                state.stand_pat_or_discard([c for c in hand if rng.random() < 0.5])
            elif state.can_fold() and rng.random() < 1 / 6:
                state.fold()
            elif state.can_complete_bet_or_raise_to() and rng.random() < 0.25:
                state.complete_bet_or_raise_to()
            elif state.can_check_or_call():
                state.check_or_call()
            else:
                raise RuntimeError("PokerKit's state offers no move")
        text = HandHistory.from_game_state(game, state).dumps()
        texts.append(text)
    return texts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True, help="the .phhs file to write")
    args = parser.parse_args(argv)
    texts = make_hands(args.hands, args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(f"[{i + 1}]\n{text.strip()}\n\n" for i, text in enumerate(texts)), encoding="utf-8")
    print(f"wrote {out}: {len(texts):,} hands made by PokerKit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
