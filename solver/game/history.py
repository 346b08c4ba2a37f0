"""What strategies remember of the rounds older than their recall: one table of rules.

A layout by recall rule (:class:`solver.game.layout.RecallRule`) keeps, of a
decision's history, its round, the pot when the round started, the whole
record of the last ``recall`` rounds and, of each round older than that, a
*kept code*: what the rule keeps of that round's record (its betting outcome
and both draw counts, ``o * (H + 1)^2 + d_bb * (H + 1) + d_button``; see
:mod:`solver.game.rounds`). A rule is two parts, chosen in the config:

- ``older_betting``: what is kept of an older round's betting (a row of
  :data:`BETTING_RULES`: a code per betting outcome of each round);
- ``remember_draws``: whether both draw counts are kept.

and, for every round a key holds (kept or older), ``draw_limit``: the largest draw count
told apart (0, the default: every count; 3 of four cards remembers drawing four as drawing
three, a draw nobody takes often and whose keys are a third of the last round's).

A round's kept code is ``betting code * draw codes + draw code``; a recalled round's is
``outcome * draw codes + draw code`` (:func:`recent_codes`: the record itself when every draw
count is told apart); every code
table is built here (:func:`older_codes`), and the layout, the plan and the
kernels only read the table. A new rule is one row of :data:`BETTING_RULES`.

>>> from solver.game.config import load_preset
>>> from solver.game.rounds import RoundTemplates
>>> templates = RoundTemplates.of(load_preset("double-draw"))
>>> older = older_codes(templates, recall=0, remember_draws=False, older_betting="forget")
>>> older.n_codes, int(older.code.max())
(1, 0)
>>> older_codes(templates, recall=0, remember_draws=True, older_betting="forget").n_codes   # 5 x 5 draw counts
25
>>> older_codes(templates, 0, True, "forget", draw_limit=3).n_codes    # 0, 1, 2, 3 or more
16
>>> recent_codes(templates, 3).n_codes == templates.outcomes_max * 16
True
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from .codes import CONTINUE

# (No import of the game's modules but its codes: configs check their rule names here. A rule's codes read a
# round's template, :class:`solver.game.rounds.RoundTemplate`: its outcomes and their chips.)


class BettingRule(NamedTuple):
    """What a recall rule keeps of an older round's betting."""

    describe: str   # how a game's name says it ("" for forgetting it)
    codes: Callable[[object, float], np.ndarray]  # (round template, bet size) -> (outcomes,) dense codes from 0


def _forget(template, bet: float) -> np.ndarray:
    return np.zeros(template.n_outcomes, np.int64)


def _number_of_bets(template, bet: float) -> np.ndarray:
    """The bets and raises of the round (the big blind's blind is not a bet of his): what each
    seat put in beyond the round's opening, in bets."""
    return np.rint((template.outcome_contrib - max(template.start_contrib)) / bet).astype(np.int64)


def _last_bettor(template, bet: float) -> np.ndarray:
    """Who bet or raised last in the round: 0 if nobody did (checked through, or the big blind's
    option checked), 1 + the seat otherwise (the seat that did not call at the round's end)."""
    out = np.zeros(template.n_outcomes, np.int64)
    position, action = np.nonzero(template.kind == CONTINUE)
    caller = template.seat[position].astype(np.int64)
    raised = template.contrib[position, action, 0] > max(template.start_contrib) + 1e-9
    out[template.target[position, action]] = np.where(raised, 2 - caller, 0)
    return out


# One row per rule; the first is the default (and what files written before rules existed did).
BETTING_RULES: dict[str, BettingRule] = {
    "forget": BettingRule("", _forget),
    "bets": BettingRule("the number of bets", _number_of_bets),
    "last": BettingRule("who bet last", _last_bettor),
}
DEFAULT_BETTING = "forget"


class OlderCodes(NamedTuple):
    """The kept code of every record of every round (``code[round, record]``) and how many codes
    there are (the radix of an older round's digit in a key)."""

    code: np.ndarray   # (rounds, record radix) int64
    n_codes: int


def draw_pair_codes(hand_size: int, draw_limit: int = 0) -> tuple[np.ndarray, int]:
    """(code of each pair of draw counts ``d_bb * (H + 1) + d_button``, number of codes): the
    pair itself, or with ``draw_limit`` > 0 each count above it remembered as the limit."""
    h1 = hand_size + 1
    if not draw_limit:
        return np.arange(h1 * h1, dtype=np.int64), h1 * h1
    pair = np.arange(h1 * h1)
    m = draw_limit + 1
    return (np.minimum(pair // h1, draw_limit) * m + np.minimum(pair % h1, draw_limit)).astype(np.int64), m * m


def recent_codes(templates, draw_limit: int = 0) -> OlderCodes:
    """The code table of the rounds a rule recalls whole (``code[round, record]``): the record
    (outcome and both draw counts) with each draw count above ``draw_limit`` remembered as the
    limit; the record itself (and the record radix) for ``draw_limit`` 0."""
    radix = templates.record_radix
    rounds = templates.config.rounds
    if not draw_limit:
        return OlderCodes(np.tile(np.arange(radix, dtype=np.int64), (rounds, 1)), radix)
    pairs, n_pairs = draw_pair_codes(templates.config.hand_size, draw_limit)
    record = np.arange(radix)
    code = (record // len(pairs)) * n_pairs + pairs[record % len(pairs)]
    return OlderCodes(np.tile(code, (rounds, 1)), templates.outcomes_max * n_pairs)


def older_codes(templates, recall: int, remember_draws: bool, older_betting: str, draw_limit: int = 0) -> OlderCodes:
    """The code table of a recall rule's older rounds. With ``recall`` = the number of draws no
    round is older, and the table keeps nothing."""
    config = templates.config
    h1 = config.hand_size + 1
    radix = templates.record_radix
    pairs, n_pairs = draw_pair_codes(config.hand_size, draw_limit)
    draw_codes = n_pairs if remember_draws else 1
    betting = BETTING_RULES[older_betting]
    outcome_codes = [betting.codes(t, config.bets[r]) for r, t in enumerate(templates.rounds)]
    n_betting = max(int(c.max()) + 1 for c in outcome_codes)
    if recall >= config.draws or (draw_codes == 1 and n_betting == 1):
        return OlderCodes(np.zeros((config.rounds, radix), np.int64), 1)
    record = np.arange(radix)
    outcome, draws = record // (h1 * h1), pairs[record % (h1 * h1)]
    code = np.zeros((config.rounds, radix), np.int64)
    for r, codes in enumerate(outcome_codes):
        known = outcome < len(codes)   # records past a round's outcomes never occur
        code[r, known] = codes[outcome[known]] * draw_codes + (draws[known] if remember_draws else 0)
    return OlderCodes(code, n_betting * draw_codes)


def modulus_codes(rounds: int, radix: int, older: int) -> np.ndarray:
    """The code table of files written before rules had tables: an older round's record modulo
    ``older`` (1: nothing; (H + 1)^2: both draw counts)."""
    return np.tile(np.arange(radix, dtype=np.int64) % older, (rounds, 1))


def describe_older(remember_draws: bool, older_betting: str, draws: str = "every draw") -> str:
    """What is kept of the older rounds, as a game's name says it after "recall N rounds" (and
    a plan with ``draws`` = "the draw counts"); "" for nothing."""
    parts = [p for p in (BETTING_RULES[older_betting].describe, draws if remember_draws else "") if p]
    return " and ".join(parts)


def describe_draw_limit(draw_limit: int) -> str:
    """How a game's name says its draw limit ("" for every draw count told apart)."""
    return f"draws of {draw_limit} or more as {draw_limit}" if draw_limit else ""
