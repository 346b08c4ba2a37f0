"""What each `badugi` command does, given its parsed arguments (:mod:`solver.cli` parses them
and reports errors): arguments checked before anything heavy is read, then the work of the
packages below (solving, tables, the arena)."""

from __future__ import annotations

import argparse
import contextlib
import gc
import itertools
import json
import sys
import threading

import numpy as np

from abstractions.files import atomic_write

from .game.setup import GameSetup
from .game.tree import DRAW, SEAT_NAMES, action_name


COMPILE_SECONDS = 15       # cold compile of the solver's kernels on this project's 2-core machine


DEFAULT_TARGET_MBB = 0.1


DEFAULT_TIME_LIMIT = 3600.0


class CliError(ValueError):
    """A user-facing error: printed as one line, exit status 2."""


def _game_config(args: argparse.Namespace):
    from .game.config import preset_names, resolve_config

    if args.preset == "list":
        raise CliError(f"presets: {', '.join(preset_names())}")
    return resolve_config(args.preset, args.config)


def cmd_plan(args: argparse.Namespace) -> int:
    from .game.config import load_preset, preset_names

    if args.preset == "list":
        for name in preset_names():
            print(f"{name:<22} {load_preset(name).describe()}")
        return 0
    config = _game_config(args)
    if args.full_resolution:
        config = config.at_full_resolution()
    if args.machines is not None:
        from .cfr.planning import cluster_plan

        if args.machine_memory is None or args.machine_cores is None:
            raise CliError("--machines needs --machine-memory GiB and --machine-cores N")
        plan = cluster_plan(config, args.machines, int(args.machine_memory * 2 ** 30), args.machine_cores)
        print(json.dumps(plan.to_json()) if args.json else f"game:            {config.describe()}"
              + (" (full resolution)" if not config.abstracted else "") + "\n" + plan.describe())
        return 0
    plan = GameSetup(config).plan
    print(json.dumps(plan.to_json()) if args.json else plan.describe())
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    from pathlib import Path

    import numba

    from .cfr.compiling import compile_report
    from .cfr.engine import DEFAULT_ALGORITHM
    from .cfr.files import CHECKPOINT_NAME, load_checkpoint
    from .cfr.locks import LockFile
    from .cfr.solve import RaySetup, check_resume, check_solvable, check_stopping_rules

    # Everything a user can get wrong is checked before the first line is printed.
    if args.threads is not None:
        if not 1 <= args.threads <= numba.config.NUMBA_NUM_THREADS:
            raise CliError(f"--threads must be 1 to {numba.config.NUMBA_NUM_THREADS} (this machine's cores), "
                           f"got {args.threads}")
        numba.set_num_threads(args.threads)
    if args.resume and args.force:
        raise CliError("--resume continues the run in --out and --force replaces it: give one of them")
    if args.resume and args.warm_start:
        raise CliError("--warm-start begins a new run; --resume goes on from the run's own checkpoint: give one")
    out = Path(args.out) if args.out else None
    config = None
    algorithm = args.algorithm or DEFAULT_ALGORITHM
    if args.lock is not None and not args.lock.strip():
        raise CliError("--lock needs a lock file or a shipped lock's name")
    locks = LockFile.read(args.lock) if args.lock else None
    if args.resume:
        # The checkpoint says which game and algorithm it is, unless the command does (then they must agree).
        if out is None:
            raise CliError("--resume needs --out DIR (the directory of the interrupted run)")
        given = None if args.preset is None and args.config is None else _game_config(args)
        # (Not its storage: solve() reads that; two copies of a big game's would not fit.)
        saved = load_checkpoint(out / CHECKPOINT_NAME, given, args.algorithm, storage=False)
        config = saved["config"]
        algorithm = str(saved["algorithm"])
        if args.lock is None and saved["lock_toml"]:
            locks = LockFile.parse(saved["lock_toml"], f"{out}'s lock", saved["lock_base"])
        check_resume(saved, out / CHECKPOINT_NAME, locks)
    config = config or _game_config(args)
    if out is None:
        out = Path("runs") / (Path(args.config).stem if args.config else (args.preset or "single-draw"))
    target, limit, iterations = args.target_exploitability, args.time_limit, args.iterations
    if target is None and limit is None and iterations is None:
        target, limit = DEFAULT_TARGET_MBB, DEFAULT_TIME_LIMIT
    check_stopping_rules(iterations, target, limit)
    if args.certify_at and limit is None:
        raise CliError("--certify-at needs --time-limit (its fractions are of the time limit)")
    if args.actor_memory is not None and args.ray is None:
        raise CliError("--actor-memory needs --ray")
    ray = RaySetup(args.ray, args.actors, args.actor_cpus,
                   None if args.actor_memory is None else int(args.actor_memory * 2 ** 30)) if args.ray else None
    # its plan, made once: the checks and the solve read it
    setup = GameSetup(config, streamed=True if args.streamed else None)
    check_solvable(setup, locks, ray)
    _check_run_directory(out, args.resume, args.force)
    # Numba's compilations (a first run's) said on one line that ends before anything else is
    # printed: "compiling the solver's kernels, once (...) ... compiled 4 kernels in 11.2 s".
    opening = "compiling" if kernels_cached() else (
        f"compiling the solver's kernels, once (about {COMPILE_SECONDS} s on 2 cores; later runs load them in about "
        "a second)")
    with contextlib.nullcontext() if args.quiet else compile_report(sys.stdout, opening) as report:

        def tell(line: str) -> None:
            if report is not None:
                report.end_line()
            print(line, flush=True)

        say = (lambda line: None) if args.quiet else tell
        return _solve_and_report(args, setup, algorithm, locks, ray, out, target, limit, iterations, say, tell)


def _solve_and_report(args, setup, algorithm, locks, ray, out, target, limit, iterations, say, tell) -> int:
    """cmd_solve's solve, charts and last lines (``say``: progress, silent with --quiet; ``tell``:
    always printed)."""
    from .cfr.solve import fraction_certificates, solve
    from .tables.charts import write_charts

    say(f"solving {setup.config.describe()} with {algorithm} -> {out}")
    if ray is not None:
        from .cfr.distributed import describe as describe_ray

        say(f"on Ray at {args.ray}: {args.actors} actor(s) owning the subtrees, {args.actor_cpus:g} CPU(s) each")
    result = solve(setup, algorithm=algorithm, iterations=iterations, target_mbb=target, time_limit=limit, out_dir=out,
                   resume=args.resume, progress=say, check_every=args.check_every, locks=locks, ray=ray,
                   certify_every=args.certify_every, warm_from=args.warm_start, certify_at=args.certify_at)
    if ray is not None:
        say(describe_ray(result.engine))
        result.engine.shutdown()
    x, stopped_by, done, seconds = result.exploitability, result.stopped_by, result.iterations, result.seconds
    streamed = result.engine.setup.streamed
    if result.certified_spread is not None:
        taken = fraction_certificates(result.certified, args.certify_at, limit)
        tell(f"certified at {', '.join(f'{f:g}' for f in sorted(set(args.certify_at)))} of the time limit and at "
             f"the end: {', '.join(f'{c:.2f}' for c in taken)} mbb/hand, {result.certified_spread:.1%} apart "
             f"({'within' if result.certified_spread <= 0.03 else 'not within'} 3%)")
    del result  # the solve's storage (9.6 GB for the triple-draw preset): charts read the strategy file
    gc.collect()
    if args.no_charts:
        charts = write_charts(out, convergence_only=True)
    else:
        # A game whose tree is never built gets its charts from two streamed walks of the whole tree.
        walks = f": two walks of the whole tree, {_whole_walks_minutes(setup.plan)}" if streamed else ""
        say(f"drawing charts (draws, pat/snow/break, betting, EV, convergence{walks})")
        charts = write_charts(out)
    tell(f"done ({stopped_by}): {done} iterations in {seconds:.1f}s; "
         f"exploitability {x.exploitability_mbb:.4f} mbb/hand; "
         f"button's game value {x.game_value_mbb:.3f} mbb/hand")
    tell(f"results in {out}/: summary.json, convergence.csv, strategy.npz, checkpoint.npz, "
         + ", ".join(p.name for p in charts if p.suffix != ".svg") + " (and .svg)")
    return 0


RUN_FILES = ("checkpoint.npz", "strategy.npz", "summary.json", "config.toml", "convergence.csv", "lock.toml",
             "lock_pairs.npz", "draws.csv", "pat_snow_break.csv", "situations.csv", "ev_by_hand.csv",
             "explorer.html")


def _clear_run(out) -> None:
    """Remove what a run replaced with --force left: its files and charts (nothing else)."""
    for path in list(out.glob("*.png")) + list(out.glob("*.svg")) + [out / name for name in RUN_FILES]:
        if path.is_file():
            path.unlink()
    from .cfr.files import remove_shards

    remove_shards(out)


def _check_run_directory(out, resume: bool, force: bool, resumable: bool = True) -> None:
    """Before any work: the output directory can be made and written, and holds no other run
    (unless resumed, or replaced with --force)."""
    from .cfr.files import CHECKPOINT_NAME, STRATEGY_NAME

    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out}: a file of that name exists; give a directory")
    # The folders made for the check are removed again: the run makes them when it writes, so a
    # run that fails first (a bad lock, a bad opponent) leaves nothing behind.
    made = [folder for folder in [out, *out.parents] if not folder.exists()]
    try:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise CliError(f"--out {out}: cannot write there ({err.strerror or err})") from None
        _check_writable(out / ".write-check", out)
    finally:
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
    if not resume and not force and ((out / CHECKPOINT_NAME).exists() or (out / STRATEGY_NAME).exists()):
        raise CliError(f"{out} holds a run already: " + ("--resume continues it, " if resumable else "")
                       + "--force replaces it, or give another --out")


def _check_out_file(out, force: bool) -> None:
    """Before any work: ``--out FILE`` can be written, and replaces a file only with --force."""
    from pathlib import Path

    path = Path(out)
    if path.is_dir():
        raise CliError(f"--out {out} is a directory; give a file name")
    if path.exists() and not force:
        raise CliError(f"--out {out} exists: --force replaces it, or give another --out")
    _check_writable(path.with_name(f".{path.name}.write-check"), out)


def _check_writable(probe, out) -> None:
    """Write and remove the file ``probe`` as every output is written (atomic_write); a
    CliError naming ``out`` as the user typed it if that cannot be done."""
    try:
        with atomic_write(probe):
            pass
        probe.unlink()
    except OSError as err:
        raise CliError(f"--out {out}: cannot write there ({err.strerror or err})") from None


def kernels_cached() -> bool:
    """Whether the solver's main kernel is in Numba's cache for this source (else a first run
    compiles it first)."""
    from .cfr import kernels

    try:
        return bool(kernels.traverse._cache._cache_file._load_index())
    except Exception:  # an internal of Numba's; if it moves, say nothing rather than fail
        return True


def _whole_walks_minutes(plan) -> str:
    """How long two evaluate walks of a streamed game's whole tree take (``plan``: its
    :class:`SolvePlan`): about its certificate (two best responses and one evaluate walk)."""
    return f"about {max(plan.certificate_seconds / 60, 1):.0f} min"


def _say_whole_walks(strategy, history: str) -> None:
    """A first-round decision of a strategy file of a game whose tree is never built takes walks
    of the whole tree (a compact strategy has them in its spot tables)."""
    if strategy.tree is None and strategy.store is None and not history.count("/") >= 2:
        print(f"(a first-round decision: its reach and values take two walks of the whole tree, "
              f"{_whole_walks_minutes(GameSetup(strategy.config).plan)})", flush=True)


def _checked_spot_args(args: argparse.Namespace):
    """The game of ``args.dir``'s strategy, with ``args.history`` located and ``args.hand`` read in
    its deck: a bad directory, history or hand is a one-line error before any strategy is read.
    Returns (config, located decision, hand class or None)."""
    from abstractions.cards import parse_cards
    from abstractions.evaluator import get_evaluator
    from .cfr.store import strategy_config
    from .game.rounds import RoundTemplates, locate

    config = strategy_config(args.dir)
    at = locate(RoundTemplates.of(config), args.history)
    value = None
    if args.hand:
        evaluator = get_evaluator(config.ranks, config.suits, config.hand_size)
        value = evaluator.evaluate(np.asarray(parse_cards(args.hand, evaluator.deck, count=config.hand_size)))
    return config, at, value


def _ev(x: float) -> str:
    return "-" if x != x else f"{x:+.0f}"


def cmd_show(args: argparse.Namespace) -> int:
    from .tables.charts import MIN_GROUP_REACH
    from .tables.reports import class_groups, group_figures
    from .tables.strategy import NEGLIGIBLE_REACH, load_strategy

    config, at, value = _checked_spot_args(args)
    strategy = load_strategy(args.dir, args.cache_mb)
    kind, seat = at.kind, at.seat
    names = [action_name(label, kind) for label in at.labels]
    where = f"{SEAT_NAMES[seat]}'s {'draw' if kind == DRAW else 'betting'} decision"
    print(f"history {args.history!r}: {where} ({config.describe()})")
    _say_whole_walks(strategy, args.history)
    spot = strategy.spot(args.history)
    to_call = "" if kind == DRAW else f", {spot.to_call / config.big_blind:g} bb to call" if spot.to_call > 0 else \
        ", nothing to call"
    print(f"pot {spot.pot / config.big_blind:g} bb{to_call}")
    group_of, group_labels = class_groups(strategy)
    opponent = np.bincount(group_of, weights=spot.opponent_range, minlength=len(group_labels))
    top = [g for g in np.argsort(-opponent, kind="stable") if opponent[g] >= 0.005][:8]
    if opponent.sum() > 0:
        print(f"the opponent ({SEAT_NAMES[1 - seat]}) here: " + ", ".join(
            f"{group_labels[g]} {100 * opponent[g]:.0f}%" for g in top) + (", ..." if len(top) < (opponent > 0).sum()
                                                                           else ""))
    else:
        print(f"the opponent ({SEAT_NAMES[1 - seat]}) never gets here")
    if args.hand:
        print(f"hand {args.hand}: {strategy.evaluator.describe(value)} (class {value})")
        reach = float(spot.reach[value])
        if reach >= NEGLIGIBLE_REACH:
            print(f"reach: {reach:.3g} (hands holding this class here, both seats playing the strategy)")
        else:
            never = "never gets here" if reach == 0 else "practically never gets here (under once in a billion hands)"
            print(f"reach: {reach:.3g}: with this hand the strategy {never}; the probabilities below are "
                  "what it would play, hardly tested by the solve")
        action_ev = spot.action_ev_mbb()[:, value]
        legal = strategy.rows_layout.class_legal[value] if kind == DRAW else np.ones(len(at.labels), bool)
        print(f"  {'action':<10} {'mix':>7} {'EV mbb':>8}   (EV: taking the action, then the strategy)")
        for a, name in enumerate(names):
            if legal[a]:
                print(f"  {name:<10} {100 * spot.strategy[a, value]:6.2f}% {_ev(action_ev[a]):>8}")
        print(f"  {'the mix':<10} {'':>7} {_ev(spot.ev_mbb()[value]):>8}")
        if spot.stats.nodes[0] >= 0 and strategy.tree is not None and strategy.locked_classes(int(spot.stats.nodes[0]))[value]:
            print("locked: the run's lock.toml fixes this decision of this hand (wholly, or some actions)")
        return 0
    reach = spot.reach
    ev = spot.ev_mbb()
    probs = spot.strategy
    print(f"reached in {100 * reach.sum():.3f}% of hands; frequencies and EV weighted by reach; "
          f"hands reached under 1e-6 left out (--all shows them)")
    node = int(spot.stats.nodes[0]) if strategy.tree is not None else -1
    locked = strategy.locked_classes(node) if strategy.locks is not None and node >= 0 else None
    if locked is not None and locked.any():
        print(f"locked: the run's lock.toml fixes {int(locked.sum())} of {len(locked)} hand classes here, wholly or "
              "some of their actions (column 'locked')")
    else:
        locked = None
    print(f"{'hand':<12}{'reach %':>9}" + "".join(f"{n:>10}" for n in names) + f"{'EV mbb':>10}"
          + ("  locked" if locked is not None else ""))
    figures = group_figures(group_of, len(group_labels), reach, probs, ev)
    for g, (label, (mass, freq, group_ev)) in enumerate(zip(group_labels, figures)):
        if mass < MIN_GROUP_REACH and not args.all:
            continue
        mark = ""
        if locked is not None:
            share = locked[group_of == g].mean()
            mark = "  all" if share == 1 else "  some" if share > 0 else ""
        print(f"{label:<12}{100 * mass:>9.3f}" + "".join(f"{100 * f:>9.1f}%" for f in freq) + f"{group_ev:>10.0f}"
              + mark)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    import csv

    from .tables.strategy import load_strategy

    if args.out:
        _check_out_file(args.out, args.force)
    strategy = load_strategy(args.dir, args.cache_mb)
    rounds = None if args.round is None else [args.round]
    if rounds and not 0 <= args.round <= strategy.config.draws:
        raise CliError(f"--round must be 0 to {strategy.config.draws} for this game")
    rows = strategy.rows(rounds=rounds, prefix=args.prefix, min_reach=args.min_reach,
                         kinds=[args.kind] if args.kind else None)
    first = next(rows, None)
    if first is None:
        filters = " ".join(f"--{name.replace('_', '-')} {value}" for name, value in
                           (("round", args.round), ("kind", args.kind), ("prefix", args.prefix),
                            ("min_reach", args.min_reach or None)) if value is not None)
        raise CliError(f"no row of {strategy.config.describe()} matches {filters or 'these filters'}; "
                       "nothing written")
    rows = itertools.chain([first], rows)
    # A file is written whole or not at all: a failing export leaves an existing file as it was.
    with (atomic_write(args.out, "w") if args.out else contextlib.nullcontext(sys.stdout)) as stream:
        if args.format == "csv":
            writer = csv.DictWriter(stream, fieldnames=strategy.table_columns())
            writer.writeheader()
            for row in rows:
                writer.writerow({k: ("" if v is None else (f"{v:.6g}" if isinstance(v, float) else v))
                                 for k, v in row.items()})
        else:
            for row in rows:
                # An EV where the opponent never gets here is NaN in Python and null in JSON.
                clean = {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
                stream.write(json.dumps(clean) + "\n")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from .tables.charts import write_charts

    written = write_charts(args.dirs[0], args.dirs, args.out)
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from .arena.match import BASELINES, load_player, play_match

    baselines_only = args.a in BASELINES and args.b in BASELINES
    config = _game_config(args) if (args.preset or args.config or baselines_only) else None

    def progress(done: int, total: int) -> None:
        if not args.json and total > done:
            print(f"  {2 * done:,} of {2 * total:,} hands", file=sys.stderr, flush=True)

    if args.phh:
        _check_phh_out(args.phh, args.force)
    # Compact strategies as their counts: a quarter of the memory, the same play.
    player_a, player_b = load_player(args.a, weights=True), load_player(args.b, weights=True)  # (once: --phh plays them again)
    result = play_match(config, player_a, player_b, args.hands, args.seed, progress=progress)
    if args.hands % 2:  # (said once the players are known good: an error comes alone)
        print(f"note: {args.hands:,} hands rounded up to {args.hands + 1:,} (whole duplicate pairs)", file=sys.stderr)
    print(json.dumps(result.to_json()) if args.json else result.describe())
    if args.phh:
        from .arena.match import match_histories
        from .arena.phh import write_phhs

        texts = match_histories(config, player_a, player_b, result.games, args.seed)
        write_phhs(args.phh, texts)
        print(f"wrote {args.phh} ({len(texts):,} hands, PHH)", file=sys.stderr)
    return 0


def _check_phh_out(out: str, force: bool) -> None:
    if not out.endswith((".phh", ".phhs")):
        raise CliError(f"--phh {out}: a hand history file ends in .phhs (several hands) or .phh (one)")
    _check_out_file(out, force)


DEFAULT_STRATEGY = "results/triple-draw-cap4/compact"


def _default_strategy() -> str:
    """The committed compact cap-4 strategy: under the working folder, else in this checkout."""
    from pathlib import Path

    for path in (Path(DEFAULT_STRATEGY), Path(__file__).resolve().parents[1] / DEFAULT_STRATEGY):
        if path.is_dir():
            return str(path)
    raise CliError(f"no strategy given and the committed one ({DEFAULT_STRATEGY}) is not here: give --strategy "
                   "DIR (a solve's output directory or a compact strategy)")


def _load_solution(path: str | None):
    """The strategy of review and play (the committed cap-4 one by default)."""
    from .arena.match import load_player

    player = load_player(path or _default_strategy())
    if player.config is None:
        raise CliError("--strategy must be a solved strategy directory, not a baseline")
    return player


def cmd_play(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .arena.play import play_session

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {args.out} is a file; give a directory for the hand histories")
    if out.is_dir() and any(out.glob("hand-*.phh")) and not args.force:
        raise CliError(f"--out {args.out} already holds hands: --force writes over them, or give another --out")
    player = _load_solution(args.strategy)

    def write(text: str) -> None:
        print(text, flush=True)

    play_session(player, out, args.hands, args.seat, args.seed, args.samples, input, write)
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    from .arena.match import MatchGame
    from .arena.phh import check_with_pokerkit, read_phh
    from .arena.review import review_hands, to_csv, to_json, to_text
    from .cfr.store import strategy_config
    from abstractions.cards import Deck

    for out in (args.json, args.csv):
        if out and out != "-":
            _check_out_file(out, args.force)
    # Everything a user can get wrong is checked before the strategy is read.
    path = args.strategy or _default_strategy()
    if args.strategy is not None and args.strategy in ("rule", "station", "random"):
        raise CliError("--strategy must be a solved strategy directory, not a baseline")
    config = strategy_config(path).at_full_resolution()
    histories = []
    for f in args.files:
        histories += read_phh(f, config)
        if args.pokerkit:
            check_with_pokerkit(f)
    for h in histories:
        game = h.config
        if (game.ranks, game.suits, game.hand_size, game.draws) != (config.ranks, config.suits, config.hand_size,
                                                                       config.draws) \
                or game.bets != config.bets or game.small_blind != config.small_blind:
            raise CliError(f"{h.source}: the hand's game ({game.describe()}, blinds {game.small_blind:g}/1) is not the "
                           f"strategy's ({config.describe()}, blinds {config.small_blind:g}/1)")
    if not histories:
        raise CliError("no hands in the files given")
    if args.hand is not None:
        if args.hand > len(histories):
            raise CliError(f"--hand {args.hand}: the files hold {len(histories)} hand(s)")
        histories = [histories[args.hand - 1]]
    hero = args.hero or "both"
    if hero not in ("both", "p1", "p2") and not any(hero in h.players for h in histories):
        raise CliError(f"--hero {hero}: no hand has a player of that name (p1 or p2 name a seat)")
    player = _load_solution(args.strategy)
    review = review_hands(histories, player, MatchGame.of(config), hero, args.samples, args.seed, args.every_action)
    if args.hand is not None:
        review.first_hand = args.hand   # (numbered as --hand counts them)
    deck = Deck(config.ranks, config.suits)
    outputs = {"json": (args.json, to_json), "csv": (args.csv, to_csv)}
    printed = False
    for name, (out, render) in outputs.items():
        if not out:
            continue
        text = render(review, deck)
        if out == "-":
            print(text)
            printed = True
        else:
            from pathlib import Path

            Path(out).write_text(text + ("\n" if not text.endswith("\n") else ""), encoding="utf-8")
            print(f"wrote {out}", file=sys.stderr)
    if not printed:
        print(to_text(review, deck, per_hand=not args.summary))
    return 0


def cmd_explore(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .cfr.store import strategy_config
    from .game.rounds import RoundTemplates, locate
    from .tables.explorer import ExplorerServer, write_explorer
    from .tables.strategy import load_strategy

    # (checked before the strategy is read)
    config = strategy_config(args.dir)
    if args.max_round is not None and args.max_round > config.draws:
        raise CliError(f"--max-round must be 0 to {config.draws} for {config.describe()} "
                       f"(its betting rounds), got {args.max_round}")
    if args.prefix:
        locate(RoundTemplates.of(config), args.prefix)  # ValueError names a bad prefix
    selected = args.prefix is not None or args.max_round is not None or args.out is not None
    if args.serve and selected:
        raise CliError("--serve serves the whole strategy, a spot at a time: --out, --prefix and --max-round write "
                       "a page of a part of it")
    if args.stop_after is not None and not args.serve and selected:
        raise CliError("--stop-after stops a served page (--serve)")
    if args.out and not args.serve:
        _check_out_file(args.out, args.force)
    strategy = load_strategy(args.dir, args.cache_mb)
    if args.serve or (strategy.tree is None and not selected):
        server = ExplorerServer(strategy, port=args.port)
        print(f"serving {config.describe()} at {server.url}: open it in a browser (each spot is read when it is "
              "opened; Ctrl-C stops)", flush=True)
        if args.stop_after is not None:
            threading.Timer(args.stop_after, server.shutdown).start()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
        print("stopped serving")
        return 0
    out = Path(args.out) if args.out else Path(args.dir) / "explorer.html"
    path = write_explorer(strategy, out, args.prefix, args.max_round, int(args.max_mb * 1e6))
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB): open it in a browser (it needs no network)")
    return 0


def cmd_exploit(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .arena.exploit import SEAT_OPTIONS, describe, exploit

    out = Path(args.out)
    _check_run_directory(out, False, args.force, resumable=False)
    if args.force:
        _clear_run(out)
    summary = exploit(args.dir, args.against, SEAT_OPTIONS[args.seat], out)
    print(json.dumps(summary) if args.json else describe(summary))
    if not args.json:
        print(f"strategy in {out}/ (badugi show, export, plot and match read it)")
    return 0


def cmd_compact(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .cfr.files import STRATEGY_NAME
    from .cfr.compact_file import COMPACT_NAME, PART_BYTES
    from .tables.compact import certify, convert, make_compact

    if (args.dir is None) == (args.convert is None):
        raise CliError("give a solved run's directory, or --convert a compact strategy (not both)")
    source = Path(args.dir or args.convert)
    out = Path(args.out)
    if out.resolve() == source.resolve():
        raise CliError("--out must be another directory than the " + ("run's (a compact strategy stands on its own)"
                                                                      if args.dir else "one converted"))
    if (out / STRATEGY_NAME).exists():
        raise CliError(f"{out} holds a solved run's strategy file: give a directory of its own to the compact one")
    if (out / COMPACT_NAME).exists() and not args.force:
        raise CliError(f"{out} already holds a compact strategy (--force replaces it)")
    say = print
    part_bytes = int(args.part_mb * 10**6) if args.part_mb else PART_BYTES
    if args.convert:
        manifest = convert(source, out, args.codec, part_bytes, say=say)
    else:
        manifest = make_compact(source, out, args.min_reach, part_bytes, args.bits, args.fine_reach, args.threshold,
                                args.codec, say=say)
    if not args.no_certify and (args.dir or "certificate" not in manifest):
        say("certifying the compact strategy: exact best response at full resolution")
        manifest = certify(out, say=say)
    print(f"compact strategy in {out}/: {COMPACT_NAME} and {len(manifest['parts'])} part(s), "
          f"{manifest['bytes'] / 1e6:.1f} MB (badugi show, match, explore and plot read it)")
    return 0


EVAL_ERRORS_NAMED = 5     # bad lines of standard input named one by one; the rest are counted


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate hands in bulk: parse every line, one batch through the evaluator, one write.

    Hands on the command line are compared as one deal (a card in two of them is noted); lines
    of standard input are independent hands (one note at most says how many share cards)."""
    import numpy as np

    from abstractions.cards import format_cards, format_hands, parse_hands
    from abstractions.evaluator import get_evaluator

    evaluator = get_evaluator(args.ranks, args.suits, args.hand_size)
    deck = evaluator.deck
    from_stdin = args.hands == ["-"]
    if from_stdin:
        # Text mode has made every line end in "\n" (as iterating over the lines would split).
        lines = sys.stdin.read().split("\n")
        numbers = [n for n, line in enumerate(lines, start=1) if line.strip()]
        texts = [lines[n - 1] for n in numbers]
        label = "line"
    elif "-" in args.hands:
        raise CliError("'-' (read standard input) cannot be mixed with hands on the command line")
    else:
        texts, numbers, label = args.hands, list(range(1, len(args.hands) + 1)), "hand"

    parsed = parse_hands(texts, deck, evaluator.hand_size)
    for index, message in parsed.errors[:EVAL_ERRORS_NAMED]:
        print(f"badugi eval: {label} {numbers[index]}: {message}", file=sys.stderr)
    if len(parsed.errors) > EVAL_ERRORS_NAMED:
        more = len(parsed.errors) - EVAL_ERRORS_NAMED
        print(f"badugi eval: and {more:,} more bad {label}s (of {len(texts):,}; every other {label} is evaluated)",
              file=sys.stderr)

    hands = parsed.cards
    values = evaluator.evaluate_batch(hands)
    shown = format_hands(hands, deck)
    several = len(hands) > 1
    wins = values == values.min() if several else np.zeros(len(hands), dtype=bool)
    if args.json:
        # The part of each object that the value decides, written once per value.
        tail = {int(v): json.dumps({"ranks": evaluator.value_rank_names(v), "name": evaluator.describe(v)},
                                   ensure_ascii=False)[1:-1] for v in np.unique(values)}
        kept = format_hands(evaluator.best_subsets(hands), deck)
        # Card text needs no JSON escapes: the lines are json.dumps's, written without a call per hand.
        end = {True: ', "wins": true}', False: ', "wins": false}'} if several else {False: "}"}
        out = [f'{{"hand": "{hand}", "value": {value}, "cards": "{cards}", {tail[value]}{end[win]}'
               for hand, value, cards, win in zip(shown, values.tolist(), kept, wins.tolist())]
    else:
        names = {int(v): evaluator.describe(v) for v in np.unique(values)}
        width = max(map(len, shown), default=0)
        out = [f"{hand:<{width}}  value {value:>5}  {names[value]}" for hand, value in zip(shown, values.tolist())]
        if several:
            winners = [shown[i] for i in np.flatnonzero(wins)]
            out.append(f"{'winner' if len(winners) == 1 else 'tie (split pot)'}: {', '.join(winners)}")
    if out:
        sys.stdout.write("\n".join(out) + "\n")
        sys.stdout.flush()

    # Hands on the command line are usually one deal: say when they could not be.
    if not from_stdin:
        for (a, cards_a), (b, cards_b) in itertools.combinations(zip(parsed.lines.tolist(), hands.tolist()), 2):
            shared = set(cards_a) & set(cards_b)
            if shared:
                print(f"note: hand {numbers[a]} and hand {numbers[b]} share {format_cards(sorted(shared), deck)}: "
                      "they cannot both be dealt from one deck", file=sys.stderr)
    elif several:
        # Lines are independent hands: a card in several of them is worth one line, not one per pair.
        held = np.bincount(hands.ravel().astype(np.int64), minlength=deck.n_cards)
        sharing = np.flatnonzero((held[hands] > 1).any(axis=1))
        if len(sharing):
            first = sharing[0]
            card = next(c for c in hands[first].tolist() if held[c] > 1)
            other = next(i for i in sharing[1:].tolist() if card in hands[i].tolist())
            print(f"note: {len(sharing):,} of {len(hands):,} lines share a card with another line (first: line "
                  f"{numbers[parsed.lines[first]]} and line {numbers[parsed.lines[other]]} share "
                  f"{format_cards([card], deck)}); each line is evaluated as a hand of its own", file=sys.stderr)
    return 2 if parsed.errors else 0
