"""What strategies remember of older rounds (solver/game/history.py): each rule's slots are
exactly the histories it tells apart, and a rule solves and certifies from the command line."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from solver.cli import main
from solver.game.config import ConfigError, load_preset
from solver.game.history import BETTING_RULES
from solver.game.setup import GameSetup
from solver.game.tree import DRAW

TINY_DD_CAP2 = dataclasses.replace(load_preset("tiny-double-draw"), cap=2)
TINY_TRIPLE_CAP2 = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, cap=2, bets=(1.0, 1.0, 2.0, 2.0))


def _kept_betting(rule: str, betting: str, index: int) -> tuple:
    """What ``rule`` keeps of one older round's betting, from its history text alone."""
    if rule == "forget":
        return ()
    if rule == "bets":
        return (betting.count("b") + betting.count("r"),)  # the big blind's blind is no bet of his
    if rule == "last":
        # Seats alternate within a round: the button (seat 0) opens the first, the big blind
        # (seat 1) every later one; the seat of the last bet or raise, or nobody.
        first = 0 if index == 0 else 1
        bettors = [(first + i) % 2 for i, a in enumerate(betting) if a in "br"]
        return (bettors[-1] if bettors else None,)
    raise AssertionError(f"no independent key for rule {rule!r}: add one here")


@pytest.mark.parametrize("config", [TINY_DD_CAP2, TINY_TRIPLE_CAP2], ids=["double", "triple"])
@pytest.mark.parametrize("rule", list(BETTING_RULES))
@pytest.mark.parametrize("draws", [False, True])
@pytest.mark.parametrize("limit", [0, 1], ids=["every-draw", "draw-limit-1"])
def test_rule_slots_are_the_histories_it_remembers(config, rule, draws, limit):
    """Two decision nodes share a slot exactly when they agree on the round, the pot at its
    start, the last ``recall`` rounds' betting and draws, what ``rule`` keeps of each older
    round's betting (and its draw counts with ``remember_draws``), and their position in the
    round; with a draw limit, a draw count above it reads as the limit (two-card hands: drawing
    two is remembered as drawing one). Keys written from each node's history text, not from the
    rule's tables."""
    def seen(d: str) -> str:
        return "".join(str(min(int(x), limit)) for x in d) if limit else d

    for recall in range(config.draws + (1 if limit else 0)):
        game = dataclasses.replace(config, recall=recall, remember_draws=draws and recall < config.draws,
                                   older_betting=rule if recall < config.draws else "forget", draw_limit=limit)
        setup = GameSetup(game)
        tree, layout = setup.tree, setup.layout
        slot_of_key, key_of_slot = {}, {}
        for node in np.nonzero(tree.kind <= DRAW)[0]:
            parts = tree.history(int(node)).split("/")
            r = int(tree.round[node])
            done = [(parts[2 * k], seen(parts[2 * k + 1])) for k in range(r)]  # (betting, draws) of finished rounds
            kept = tuple(done[::-1][:recall])
            older = tuple(_kept_betting(rule, bet, r - 1 - k) + ((d,) if draws else ())
                          for k, (bet, d) in enumerate(done[::-1]) if k >= recall)
            key = (r, round(float(tree.pot[node]), 9), kept, older, int(tree.phase[node]))
            slot = int(layout.slot_of[node])
            assert slot_of_key.setdefault(key, slot) == slot
            assert key_of_slot.setdefault(slot, key) == key
        assert len(slot_of_key) == layout.n_slots


@pytest.mark.parametrize("rule", list(BETTING_RULES))
@pytest.mark.parametrize("draws", [False, True])
@pytest.mark.parametrize("limit", [0, 1])
def test_recall_keys_are_every_history_key_in_tuple_order(rule, draws, limit):
    """The keys a rule enumerates with arrays are those a plain walk over (pot, records) tuples
    finds, one per key, in Python's tuple order (the order of the layout's slots, which files
    written before keep); with a draw limit, over records whose draw counts above it read as
    the limit."""
    from solver.game.history import older_codes, recent_codes
    from solver.game.layout import recall_keys
    from solver.game.rounds import RoundTemplates

    for recall in range(TINY_TRIPLE_CAP2.draws + 1):
        try:
            game = dataclasses.replace(TINY_TRIPLE_CAP2, recall=recall, remember_draws=draws, older_betting=rule)
        except ConfigError:
            continue
        templates = RoundTemplates.of(game)
        code, older = older_codes(templates, recall, draws, rule, limit)
        recent = recent_codes(templates, limit)
        h1 = game.hand_size + 1
        m = limit + 1 if limit else h1

        def kept(o, pair):   # a record's code, written out: outcome, then both counts, each at most the limit
            lo = limit or game.hand_size
            return o * m * m + min(pair // h1, lo) * m + min(pair % h1, lo)

        older_of_kept = {(r, kept(o, pair)): int(code[r, o * h1 * h1 + pair]) for r in range(game.rounds)
                         for o in range(templates.rounds[r].n_outcomes) for pair in range(h1 * h1)} if older > 1 else {}
        expected, keys = [], {(0, ())}
        for r, template in enumerate(templates.rounds):
            expected.append(sorted(keys))
            nxt = set()
            for pot, records in keys:
                for o, added in enumerate(template.outcome_contrib):
                    if r == game.draws:
                        break
                    new_pot = templates.pot_index(r + 1, templates.pot_levels[r][pot] + added)
                    for pair in range(h1 * h1):
                        new = (kept(o, pair),) + records
                        if older > 1 and len(new) > recall:
                            new = new[:recall] + (older_of_kept[r - recall, new[recall]],) + new[recall + 1:]
                        nxt.add((new_pot, new[:recall] if older == 1 else new))
            keys = nxt
        found = recall_keys(templates, recall, code, older, recent)
        assert [[(int(k[0]), tuple(int(x) for x in k[1:])) for k in rows] for rows in found] == expected


def test_the_number_of_bets_tells_more_apart_than_forgetting_and_less_than_recall():
    slots = {rule: GameSetup(dataclasses.replace(TINY_TRIPLE_CAP2, recall=0, older_betting=rule)).layout.n_slots
             for rule in ("forget", "bets")}
    perfect = GameSetup(dataclasses.replace(TINY_TRIPLE_CAP2, recall=2)).layout.n_slots
    assert slots["forget"] < slots["bets"] < perfect


def test_a_rule_needs_a_recall_that_forgets_and_a_known_name():
    with pytest.raises(ConfigError, match="older_betting: 'most' is not a rule"):
        dataclasses.replace(TINY_DD_CAP2, recall=0, older_betting="most")
    with pytest.raises(ConfigError, match="needs a recall of 0 to 1"):
        dataclasses.replace(TINY_DD_CAP2, older_betting="bets")
    config = dataclasses.replace(TINY_DD_CAP2, recall=0, older_betting="bets")
    assert config.describe().endswith("recall 0 rounds and the number of bets")
    assert "older_betting = \"bets\"" in config.to_toml()


def test_a_draw_limit_needs_a_recall_and_a_count_the_hand_can_exceed():
    with pytest.raises(ConfigError, match="draw_limit: must be an integer from 0 to 1, got 2"):
        dataclasses.replace(TINY_DD_CAP2, recall=0, draw_limit=2)
    with pytest.raises(ConfigError, match="draw_limit: merges draw counts in the keys of a recall rule"):
        dataclasses.replace(TINY_DD_CAP2, draw_limit=1)
    config = dataclasses.replace(TINY_DD_CAP2, recall=1, remember_draws=True, draw_limit=1)
    assert config.describe().endswith("recall 1 round and every draw (draws of 1 or more as 1)")
    assert "draw_limit = 1" in config.to_toml()
    assert config.at_full_resolution().draw_limit == 0


def test_a_draw_limit_solves_and_its_file_certifies_the_same(tmp_path):
    """A streamed abstract solve with a draw limit (card buckets, recall 1 and every draw count):
    the saved file, read back, finds its slots through the rule's tables and certifies the
    summary's figure exactly; the solve learned."""
    from solver.cfr.streamed import StreamedWalker
    from solver.tables.strategy import load_strategy

    config = dataclasses.replace(TINY_TRIPLE_CAP2, buckets=(3, 4, 3, 2), recall=1, remember_draws=True,
                                 draw_limit=1)
    path = tmp_path / "game.toml"
    config.save(path)
    out = tmp_path / "run"
    assert main(["solve", "--config", str(path), "--iterations", "100", "--out", str(out), "--no-charts"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["draw_limit"] == 1
    strategy = load_strategy(out)
    assert strategy.layout.rule.kept < strategy.layout.rule.radix
    setup = GameSetup(config, streamed=True)
    walker = StreamedWalker(setup.game, strategy.layout, setup.model)
    certified = walker.exploitability(np.asarray(strategy.probabilities)).exploitability_mbb
    assert certified == pytest.approx(summary["exploitability_mbb"], abs=1e-3)
    first = float((out / "convergence.csv").read_text().splitlines()[1].split(",")[2])
    assert 0 < certified < first / 2


def test_a_rule_solves_and_certifies_from_the_command_line(tmp_path, capsys):
    """``badugi solve`` on a config with the rule: its exploitability is measured exactly at
    full resolution, and the strategy file read back certifies the same figure (a streamed
    best response of the saved probabilities)."""
    from solver.cfr.streamed import StreamedWalker
    from solver.tables.strategy import load_strategy

    config = dataclasses.replace(TINY_DD_CAP2, recall=0, older_betting="bets")
    path = tmp_path / "game.toml"
    config.save(path)
    out = tmp_path / "run"
    assert main(["solve", "--config", str(path), "--iterations", "200", "--out", str(out), "--no-charts"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["older_betting"] == "bets"
    strategy = load_strategy(out)
    assert strategy.layout.n_slots == GameSetup(config).layout.n_slots
    setup = GameSetup(config, streamed=True)
    walker = StreamedWalker(setup.game, strategy.layout, setup.model)
    certified = walker.exploitability(np.asarray(strategy.probabilities)).exploitability_mbb
    assert certified == pytest.approx(summary["exploitability_mbb"], abs=1e-3)
    first = float((out / "convergence.csv").read_text().splitlines()[1].split(",")[2])
    assert 0 < certified < first / 2   # it learned (a rule this coarse stays far from 0: 585 mbb/hand)


def test_layout_files_from_before_code_tables_still_load():
    """A layout written before rules had code tables keeps an older round's record modulo
    ``older``: read back without its table, it finds every node's slot where the table does."""
    from solver.game.layout import RULE_PREFIX, StrategyLayout, node_slots

    config = dataclasses.replace(TINY_TRIPLE_CAP2, recall=1, remember_draws=True)
    setup = GameSetup(config)
    arrays = {k: v for k, v in setup.layout.arrays().items() if k != RULE_PREFIX + "older_code"}
    old = StrategyLayout.from_arrays(arrays)
    tree = setup.tree
    slots = np.empty(tree.n_nodes, np.int64)
    node_slots(tree.kind, tree.round, tree.phase, tree.pot, tree.records, -1,
               old.rule.kernel_arrays(old.slot_offset), slots)
    assert old.rule.older > 1 and np.array_equal(slots, setup.layout.slot_of)


def test_layout_files_from_before_draw_limits_and_implied_pots_still_load():
    """A layout written before draw limits numbered every round's keys with a pot digit and the
    records themselves: its key table (written out here, key by key, as it was) read back
    without the new tables finds every node's slot where today's layout does."""
    from solver.game.layout import RULE_PREFIX, StrategyLayout, node_slots, pot_index

    config = dataclasses.replace(TINY_TRIPLE_CAP2, recall=1, remember_draws=True)
    setup = GameSetup(config)
    tree, layout = setup.tree, setup.layout
    rule = layout.rule
    rounds = config.rounds
    sizes = [int(rule.n_pots[r]) * rule.radix ** min(1, r) * rule.older ** max(r - 1, 0) * int(rule.n_phases[r])
             for r in range(rounds)]
    base = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    table = np.full(int(base[-1]), -1, np.int64)
    for node in np.nonzero(tree.kind <= DRAW)[0]:
        r = int(tree.round[node])
        digits, scale = 0, 1
        for k in range(r):
            record = int(tree.records[node][k])
            if k < 1:
                digits, scale = digits + record * scale, scale * rule.radix
            else:
                digits, scale = digits + int(rule.older_code[r - 1 - k, record]) * scale, scale * rule.older
        p = int(pot_index(rule.kernel_arrays(layout.slot_offset), r, float(tree.pot[node])))
        table[base[r] + (p * scale + digits) * int(rule.n_phases[r]) + int(tree.phase[node])] = layout.slot_of[node]
    arrays = {k: v for k, v in layout.arrays().items()
              if k not in (RULE_PREFIX + "kept", RULE_PREFIX + "kept_code", RULE_PREFIX + "pot_kept")}
    arrays[RULE_PREFIX + "code_base"], arrays[RULE_PREFIX + "code_slot"] = base, table
    old = StrategyLayout.from_arrays(arrays)
    assert old.rule.kept == old.rule.radix and old.rule.pot_kept.all()
    slots = np.empty(tree.n_nodes, np.int64)
    node_slots(tree.kind, tree.round, tree.phase, tree.pot, tree.records, -1,
               old.rule.kernel_arrays(old.slot_offset), slots)
    assert np.array_equal(slots, layout.slot_of)
    assert len(table) > len(rule.code_slot)   # today's table leaves out the pots its records imply


def test_a_rule_that_is_not_a_name_is_one_config_error():
    with pytest.raises(ConfigError, match=r"older_betting: \['bets'\] is not a rule"):
        dataclasses.replace(TINY_DD_CAP2, recall=0, older_betting=["bets"])


def test_a_setup_that_streams_gets_the_streamed_engine():
    """The setup's own choice of a streamed tree is the engine's, not the plan's default."""
    from solver.cfr.abstract import AbstractEngine
    from solver.cfr.solve import check_solvable, make_engine

    config = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 4, 2), recall=1)
    setup = GameSetup(config, streamed=True)
    assert check_solvable(setup) is False
    engine = make_engine(setup)
    assert isinstance(engine, AbstractEngine) and engine.setup.streamed
    assert check_solvable(GameSetup(config)) is True


@pytest.mark.parametrize("recall,draws,rule,limit", [(r, d, rule, 0) for r, d in ((0, False), (1, True), (2, False))
                                                      for rule in BETTING_RULES]
                         + [(3, False, "forget", 0), (1, True, "forget", 1), (2, True, "last", 1), (3, False, "forget", 1)])
def test_the_plan_counts_the_key_graph_of_a_built_tree(recall, draws, rule, limit):
    """``badugi plan``'s key states (per round, without building anything) are the slots of the
    built layout, and its decision nodes the built tree's; with the whole history remembered
    every decision node is its own key state (unless a draw limit merges draw counts)."""
    game = dataclasses.replace(TINY_TRIPLE_CAP2, recall=recall, remember_draws=draws, older_betting=rule,
                               draw_limit=limit)
    setup = GameSetup(game)
    tree, layout, plan = setup.tree, setup.layout, setup.plan
    decisions = tree.kind <= DRAW
    assert list(plan.counts.decisions_by_round) == np.bincount(tree.round[decisions], minlength=4).tolist()
    assert list(plan.key_states_by_round) == np.bincount(layout.slot_round, minlength=4).tolist()
    assert plan.key_states == layout.n_slots == len(np.unique(layout.slot_of[decisions]))
    if recall == game.draws and not limit:
        assert plan.key_states == int(decisions.sum())
    elif limit:
        assert plan.key_states < GameSetup(dataclasses.replace(game, draw_limit=0)).plan.key_states
    elif rule == "forget":
        assert plan.key_states < int(decisions.sum())
    else:  # (at cap 2, who bet last and the pot can tell every history apart: fewer or as many)
        assert plan.key_states <= int(decisions.sum())
    assert plan.to_json()["key_states_by_round"] == list(plan.key_states_by_round)


def test_plan_prints_key_states_beside_public_nodes(capsys, tmp_path):
    game = dataclasses.replace(load_preset("double-draw"), buckets=(16, 16, 16), recall=1, remember_draws=True)
    path = tmp_path / "game.toml"
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in game.to_dict().items()))
    assert main(["plan", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("key states:"))
    plan = GameSetup(game).plan
    assert f"{plan.key_states:,} decisions told apart" in line
    assert f"{sum(plan.counts.decisions_by_round):,} decision nodes" in line


@pytest.mark.parametrize("recall,draws,limit", [(1, True, 0), (2, False, 0), (2, True, 0), (1, True, 1)])
def test_the_plan_holds_the_rules_key_table_and_its_slots_arrays(recall, draws, limit, monkeypatch):
    """The memory plan counts what a recall layout itself holds: its dense key table (one slot per
    history key, as many as the built table has) and its slots' arrays (a cap-4 solve with recall
    2 and every draw count peaked 4.9 GB above a plan that left them out)."""
    from solver.game import plan as plan_module
    from solver.game.layout import recall_sizes_by_round
    from solver.game.rounds import RoundTemplates

    game = dataclasses.replace(TINY_TRIPLE_CAP2, recall=recall, remember_draws=draws, draw_limit=limit)
    setup = GameSetup(game)
    layout = setup.layout
    sizes = recall_sizes_by_round(RoundTemplates.of(game), recall, draws, draw_limit=limit)
    assert sizes.codes == len(layout.rule.code_slot)
    built = layout.rule.code_slot.nbytes + sum(getattr(layout, name).nbytes for name in
                                               ("slot_offset", "slot_round", "slot_seat", "slot_kind", "slot_actions"))
    counted = plan_module.RULE_CODE_BYTES * sizes.codes + plan_module.KEY_STATE_BYTES * layout.n_slots
    assert built <= counted
    monkeypatch.setattr(plan_module, "RULE_CODE_BYTES", 0)
    monkeypatch.setattr(plan_module, "KEY_STATE_BYTES", 0)
    assert setup.plan.bytes - plan_module.plan_solve(game).bytes == counted
