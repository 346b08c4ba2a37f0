"""The ``badugi`` command: evaluate hands, plan and run solves.

Each subcommand is a function ``cmd_NAME(args) -> exit code``; bad input raises
ValueError (or a subclass), which :func:`main` turns into one line on stderr and
exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import itertools
import json
import math
import signal
import sys
import threading

import numpy as np

from abstractions.files import atomic_write

from .cfr.algorithms import algorithm_help, algorithm_names
from .game.setup import GameSetup
from .game.tree import DRAW, SEAT_NAMES, action_name

EXAMPLES = """\
examples:
  badugi eval As2h3d4c 7h5d4d3s           which hand wins, with each value's name
  badugi eval --json "A♠ 2♥ 3♦ 4♦"         one JSON object per hand
  echo 6h4d3sAh | badugi eval -            hands from standard input, one per line
  badugi eval --ranks 6 --suits 3 --hand-size 3 As2h3d
  badugi plan --preset triple-draw         tree sizes and memory of a solve
  badugi solve --preset single-draw        solve; results and charts in runs/single-draw
  badugi show runs/single-draw --history ck/ --hand 7h5d4d3s
  badugi export runs/single-draw --format csv --min-reach 1e-4
  badugi plot runs/single-draw             draw/pat, betting, EV and convergence charts
  badugi exploit runs/single-draw --against station --out runs/vs-station
  badugi explore runs/single-draw          walk the strategy in a browser (explorer.html)
"""


COMPILE_SECONDS = 15       # cold compile of the solver's kernels on this project's 2-core machine
DEFAULT_TARGET_MBB = 0.1
DEFAULT_TIME_LIMIT = 3600.0
SOLVE_EXAMPLES = f"""\
Without a stopping rule a solve runs to {DEFAULT_TARGET_MBB} mbb/hand or {DEFAULT_TIME_LIMIT:.0f} s.

examples:
  badugi solve                                  single-draw preset, full resolution
  badugi solve --preset tiny-single-draw --iterations 2000 --out runs/tiny
  badugi solve --preset double-draw --time-limit 1800 --out runs/dd
  badugi solve --out runs/dd --resume --time-limit 3600    continue an interrupted run
  badugi solve --preset single-draw --lock never-snows --out runs/vs-no-snow
"""


class CliError(ValueError):
    """A user-facing error: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line, like every other error of the command (a pointer to
    --help instead of the usage block)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _InRange(argparse.Action):
    """A numeric option's range, checked as it is parsed (before anything runs or prints): one
    line naming the option and its range, exit status 2. ``low``/``high``: bounds included;
    ``above``: a bound excluded. NaN and infinities are never in range."""

    def __init__(self, option_strings, dest, low=None, high=None, above=None, **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.low, self.high, self.above = low, high, above
        kind, number = ("an integer", "{:,}".format) if self.type is int else ("a finite number", "{:g}".format)
        if above is not None:
            self.range = f"{kind} above {number(above)}" + (f" and at most {number(high)}" if high is not None else "")
        elif high is not None:
            self.range = f"{kind} from {number(low)} to {number(high)}"
        else:
            self.range = f"{kind} of at least {number(low)}"

    def __call__(self, parser, namespace, value, option_string=None):
        if not (math.isfinite(value) and (self.low is None or value >= self.low)
                and (self.above is None or value > self.above) and (self.high is None or value <= self.high)):
            parser.exit(2, f"{parser.prog}: error: {option_string} must be {self.range}, got {value!r}\n")
        setattr(namespace, self.dest, value)


def _add_deck_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ranks", type=int, default=13, action=_InRange, low=1, high=13,
                        help="ranks in the deck, ace upward (default 13)")
    parser.add_argument("--suits", type=int, default=4, action=_InRange, low=1, high=4,
                        help="suits in the deck, s,h,d,c order (default 4)")
    parser.add_argument("--hand-size", type=int, default=4, action=_InRange, low=1, high=4,
                        help="cards per hand, 1-4 (default 4)")


def _add_cache_arg(parser: argparse.ArgumentParser) -> None:
    from .cfr.store import DEFAULT_CACHE_MB

    parser.add_argument("--cache-mb", type=float, default=DEFAULT_CACHE_MB, metavar="MB", action=_InRange, above=0,
                        help="a compact strategy is read a chunk at a time: keep at most this many MB of them "
                        f"decoded (default {DEFAULT_CACHE_MB})")


def _add_game_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", help="a preset name (default single-draw); see 'badugi plan --preset list'")
    parser.add_argument("--config", help="a TOML game config file (keys as in the presets)")


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
        from .cfr.distributed import cluster_plan

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
    from .cfr.solve import solve
    from .tables.charts import write_charts

    say(f"solving {setup.config.describe()} with {algorithm} -> {out}")
    if ray is not None:
        from .cfr.distributed import describe as describe_ray

        say(f"on Ray at {args.ray}: {args.actors} actor(s) owning the subtrees, {args.actor_cpus:g} CPU(s) each")
    result = solve(setup, algorithm, iterations=iterations, target_mbb=target, time_limit=limit, out_dir=out,
                   resume=args.resume, progress=say, check_every=args.check_every, locks=locks, ray=ray,
                   certify_every=args.certify_every, warm_from=args.warm_start)
    if ray is not None:
        say(describe_ray(result.engine))
        result.engine.shutdown()
    x, stopped_by, done, seconds = result.exploitability, result.stopped_by, result.iterations, result.seconds
    streamed = result.engine.setup.streamed
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


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("badugi-solver")
    except PackageNotFoundError:
        return "(not installed)"


def _add_solution_args(p: argparse.ArgumentParser, role: str, seeded: str) -> None:
    """--strategy, --samples and --seed of the commands that hold hands against a strategy."""
    p.add_argument("--strategy", metavar="DIR", help=f"{role} (a solve's output or a compact strategy; default "
                   f"the committed cap-4 triple draw, {DEFAULT_STRATEGY})")
    p.add_argument("--samples", type=int, default=128, action=_InRange, low=1, high=100_000,
                   help="opponent hands sampled a decision when a hand is reviewed (default 128; the standard "
                   "error falls as its root)")
    p.add_argument("--seed", type=int, default=0, action=_InRange, low=0, help=f"fixes {seeded} (default 0)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="badugi",
        description="Game-theory solver for heads-up fixed-limit Badugi.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"badugi {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("eval", help="evaluate hands and say which wins", epilog=EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("hands", nargs="+", metavar="HAND", help="a hand such as As2h3d4c (hands given together are "
                   "one deal); '-' reads one hand per line from stdin, each line a hand of its own")
    _add_deck_args(p)
    p.add_argument("--json", action="store_true", help="one JSON object per hand")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("solve", help="compute a near-equilibrium strategy", epilog=SOLVE_EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_game_args(p)
    p.add_argument("--algorithm", choices=algorithm_names(), help="CFR variant: " + algorithm_help())
    p.add_argument("--iterations", type=int, action=_InRange, low=1,
                   help="stop at this many iterations in all (a resumed run counts its past)")
    p.add_argument("--target-exploitability", type=float, metavar="MBB", action=_InRange, above=0,
                   help="stop once exploitability is at most MBB mbb/hand")
    p.add_argument("--time-limit", type=float, metavar="S", action=_InRange, above=0,
                   help="stop after S seconds in all")
    p.add_argument("--out", help="output directory (default runs/PRESET)")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint in --out")
    p.add_argument("--force", action="store_true", help="replace a run already in --out")
    p.add_argument("--threads", type=int, action=_InRange, low=1, help="worker threads (default: all cores)")
    p.add_argument("--check-every", type=int, metavar="N", action=_InRange, low=1,
                   help="measure exploitability every N iterations "
                   "(default: adaptive, about a tenth of the run time)")
    p.add_argument("--certify-every", type=int, metavar="N", action=_InRange, low=1,
                   help="a game solved in its abstract game over a streamed tree (triple draw at cap 4): "
                   "certify it (exact best response at full resolution) every N iterations too, the certified "
                   "curve in certified.csv; certificates do not count as solving time (nor in --time-limit); "
                   "a game whose checks are exact already needs none")
    p.add_argument("--warm-start", metavar="DIR",
                   help="begin from the run in DIR: the same game and recall rule in other buckets (each bucket "
                   "takes the regrets of the run's bucket holding most of its classes; the average starts "
                   "empty); its iterations and solving seconds count as this run's")
    p.add_argument("--lock", metavar="FILE", help="a lock file (TOML) or a shipped lock's name (never-snows, "
                   "never-raises, breaks-k-badugis): decisions fixed to what an opponent does, the rest solved "
                   "(README, 'Node locking'); a resume keeps the run's")
    p.add_argument("--streamed", action="store_true",
                   help="solve over a streamed tree even where the built tree would fit: a config with card "
                   "buckets in every round and a recall rule in its abstract game (games too big to build always "
                   "are), or one without buckets at full resolution; with --ray, actors own whole groups of "
                   "subtrees; give it again to --resume")
    p.add_argument("--ray", metavar="ADDRESS", help="run the subtrees in Ray actors: a cluster's address "
                   "(host:port, or auto), or local to start a runtime on this machine (pip install -e '.[ray]'); "
                   "the result is the one-process result bit for bit")
    p.add_argument("--actors", type=int, default=2, action=_InRange, low=1,
                   help="with --ray: actors owning the subtrees (default 2)")
    p.add_argument("--actor-cpus", type=float, default=1.0, action=_InRange, above=0,
                   help="with --ray: CPUs each actor asks for (default 1)")
    p.add_argument("--actor-memory", type=float, metavar="GIB", action=_InRange, above=0,
                   help="with --ray --streamed: memory each actor asks Ray for (its memory resource, so that Ray "
                   "places actors where it is free); refused if the actors' planned peak is more, with the number "
                   "of actors that would fit (badugi plan --machines)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--no-charts", action="store_true", help="only the convergence chart (strategy charts take "
                   "seconds for single draw, a minute or two for double draw, about the certificate's time "
                   "for a game whose tree is never built)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("show", help="a solved strategy at one decision point",
                       epilog="examples:\n  badugi show runs/single-draw --history ck/\n"
                              "  badugi show runs/single-draw --history ck/2 --hand 7h5d4d3s\n",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="output directory of badugi solve")
    p.add_argument("--history", required=True, help="decision point, e.g. '' (first action), ck/, ck/21/b")
    p.add_argument("--hand", help="one hand's action probabilities instead of the table")
    p.add_argument("--all", action="store_true", help="also list hand groups that (almost) never get here")
    _add_cache_arg(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("export", help="the strategy table as CSV or JSON lines (streamed)",
                       epilog="examples:\n  badugi export runs/single-draw --format csv --out table.csv\n"
                              "  badugi export runs/dd --format json --round 1 --prefix ck/ --min-reach 1e-4\n",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="output directory of badugi solve")
    p.add_argument("--format", choices=["csv", "json"], default="csv")
    p.add_argument("--round", type=int, action=_InRange, low=0,
                   help="only this betting round (0 = before the first draw; "
                   "draw decisions after round R count as round R)")
    p.add_argument("--kind", choices=["bet", "draw"], help="only betting or only draw decisions")
    p.add_argument("--prefix", help="only decision points at or below this history")
    p.add_argument("--min-reach", type=float, default=0.0, action=_InRange, low=0, high=1,
                   help="only rows reached at least this often")
    p.add_argument("--out", help="write to this file instead of standard output (an existing file only with "
                   "--force)")
    p.add_argument("--force", action="store_true", help="replace the file --out names if it exists")
    _add_cache_arg(p)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("plot", help="charts of a solved strategy (PNG and SVG)",
                       epilog="examples:\n  badugi plot runs/single-draw\n"
                              "  badugi plot runs/a runs/b --out charts/   (convergence of both overlaid)\n",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dirs", nargs="+", metavar="DIR", help="solve output directories; charts of the first, "
                   "convergence of all")
    p.add_argument("--out", help="where to write (default: the first DIR)")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("match", help="play two players against each other in real Badugi (one deck)",
                       epilog="players: a solved strategy directory, or rule, station, random\n\n"
                              "examples:\n  badugi match runs/single-draw rule --hands 1000000 --seed 1\n"
                              "  badugi match runs/single-draw runs/single-draw --json   (real-game value)\n"
                              "  badugi match rule random --preset triple-draw\n",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="player A (figures are A's)")
    p.add_argument("b", metavar="B", help="player B")
    p.add_argument("--hands", type=int, default=200_000, action=_InRange, low=2, high=10**9,
                   help="hands in all, played as duplicate pairs "
                   "(default 200000)")
    p.add_argument("--seed", type=int, default=0, action=_InRange, low=0,
                   help="fixes the deals and mixed actions (default 0)")
    _add_game_args(p)
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--phh", metavar="FILE", help="also write every hand played as a hand history (PHH; "
                   "FILE.phhs), for badugi review or PokerKit")
    p.add_argument("--force", action="store_true", help="replace the --phh file if it exists")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("review", help="what each decision of hand histories (PHH) cost against a solved strategy",
                       epilog="For every decision: the solution's mix for the hand held there, the action taken and "
                              "its cost in big blinds\n(the solution's value of its mix minus its value of the action "
                              "taken, the opponent's cards weighed by\nwhat the solution believes of them); then totals "
                              "per player, betting and draws apart, and the worst decisions.\n\n"
                              "examples:\n  badugi match results/triple-draw-cap4/compact rule --hands 1000 --phh "
                              "hands.phhs\n  badugi review hands.phhs --hero rule --summary\n  badugi review hands.phhs --hand 3\n"
                              "  badugi review hands.phhs --json review.json --csv review.csv --every-action\n",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE", help=".phh or .phhs hand histories (fixed-limit Badugi, "
                   "heads-up)")
    _add_solution_args(p, "the solution", "the sampling")
    p.add_argument("--hero", help="review only this player's decisions (a name in the files, or p1 / p2); "
                   "default both")
    p.add_argument("--hand", type=int, action=_InRange, low=1, help="review only this hand (counted from 1 "
                   "across the files)")
    p.add_argument("--summary", action="store_true", help="print only the totals and the worst decisions")
    p.add_argument("--every-action", action="store_true", help="value every legal action of each decision (in "
                   "--json/--csv); by default only those its cost needs: the solution's mix there and the action taken")
    p.add_argument("--pokerkit", action="store_true", help="also replay every hand with PokerKit's engine first "
                   "(the phh extra: pip install -e '.[phh]')")
    p.add_argument("--json", metavar="FILE", help="write every decision and the totals as JSON (- prints it)")
    p.add_argument("--csv", metavar="FILE", help="write one row a decision as CSV (- prints it)")
    p.add_argument("--force", action="store_true", help="replace --json/--csv files if they exist")
    p.set_defaults(func=cmd_review)

    p = sub.add_parser("play", help="play real Badugi in the terminal against a solved strategy",
                       epilog="keys: the letter of an action (f k c b r), at a draw a count or the cards to throw "
                              "(e.g. Kc7d),\n? for the solution's mix in the spot, q to stop; after a hand, r reviews "
                              "it.\nEvery hand is written as DIR/hand-NNNN.phh.\n\n"
                              "examples:\n  badugi play                       (the committed cap-4 strategy)\n"
                              "  badugi play --strategy runs/single-draw --hands 10 --seat button --out my-hands\n"
                              "      (then review them: badugi review my-hands/hand-*.phh --strategy runs/single-draw "
                              "--hero you)\n",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_solution_args(p, "the opponent", "the deals and the solver's mixed actions")
    p.add_argument("--hands", type=int, action=_InRange, low=1, help="stop after this many hands (default: until q)")
    p.add_argument("--seat", choices=("alternate", "button", "big-blind"), default="alternate",
                   help="your seat (default: alternate, the button first)")
    p.add_argument("--out", default="hands", help="directory for the hand histories (default hands/)")
    p.add_argument("--force", action="store_true", help="write over hands already in --out")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("explore", help="an interactive page to walk a strategy's game tree (one HTML file, or "
                       "served on localhost for a game whose tree is never built)",
                       epilog="examples:\n  badugi explore runs/single-draw                 (runs/single-draw/explorer.html)\n"
                              "  badugi explore results/triple-draw-cap4/compact  (served on localhost: the real game, "
                              "every spot to the last round)\n"
                              "  badugi explore runs/single-draw --serve --port 8765\n"
                              "  badugi explore runs/dd --prefix ck/00/ --out dd-ck00.html   (a subtree of a big game)\n"
                              "  badugi explore runs/triple-draw-cap4 --prefix ck/00/ --max-round 1 --out td.html\n"
                              "      (cap-4 triple draw: its tree is never built; walks of the subtree)\n",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="output directory of badugi solve (or exploit), or a compact strategy")
    p.add_argument("--out", help="the HTML file to write (an existing file only with --force; default "
                   "DIR/explorer.html, the run's own page, rewritten each time)")
    p.add_argument("--force", action="store_true", help="replace the file --out names if it exists")
    p.add_argument("--prefix", help="only the decision points at or below this history")
    p.add_argument("--max-round", type=int, action=_InRange, low=0,
                   help="only betting rounds up to this one (0 = before the first draw)")
    p.add_argument("--max-mb", type=float, default=20.0, action=_InRange, above=0,
                   help="refuse a selection bigger than this (default 20)")
    p.add_argument("--serve", action="store_true", help="serve the page on localhost, each spot read when it is opened "
                   "(the default for a game whose tree is never built, without --prefix, --max-round or --out)")
    p.add_argument("--port", type=int, default=8765, action=_InRange, low=0, high=65535,
                   help="the served page's port on 127.0.0.1 (default 8765; 0: any free one)")
    p.add_argument("--stop-after", type=float, metavar="SECONDS", action=_InRange, above=0,
                   help="stop serving after this many seconds (default: until Ctrl-C)")
    _add_cache_arg(p)
    p.set_defaults(func=cmd_explore)

    p = sub.add_parser("exploit", help="the best response to a fixed opponent, as a strategy directory",
                       epilog="opponents: rule, station, random, or a strategy directory of the same game\n\n"
                              "examples:\n  badugi exploit runs/single-draw --against station --out runs/vs-station\n"
                              "  badugi exploit runs/single-draw --against rule --seat button --out runs/btn-vs-rule\n"
                              "  badugi exploit runs/single-draw --against runs/single-draw --out runs/br   "
                              "(its best responses)\n",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="a solved strategy (badugi solve's directory): the equilibrium, compared with and "
                   "kept where exploiting gains nothing")
    p.add_argument("--against", required=True, help="the opponent: rule, station, random or a strategy directory")
    p.add_argument("--seat", choices=["both", "button", "big-blind"], default="both",
                   help="which seat exploits (default both; the other keeps the equilibrium)")
    p.add_argument("--out", required=True, help="output directory of the exploiting strategy")
    p.add_argument("--force", action="store_true", help="replace a strategy already in --out")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(func=cmd_exploit)

    p = sub.add_parser("compact", help="a solved strategy made small enough to ship and play (8-bit, rows never "
                       "reached dropped), certified",
                       epilog="examples:\n  badugi compact runs/single-draw --out runs/single-draw-compact\n"
                              "  badugi compact runs/single-draw --out runs/sd-small --min-reach 1e-4 --no-certify\n"
                              "  badugi compact runs/single-draw --out runs/sd-steps --bits 6 --fine-reach 1e-3\n"
                              "  badugi compact runs/single-draw --out runs/sd-pure --threshold 0.1\n"
                              "  badugi compact --convert results/triple-draw-cap4/compact --out td-lzma --codec lzma\n"
                              "      (a compact strategy written again: from an earlier format, or in another codec)\n",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", nargs="?", help="a solved run (badugi solve's directory: its strategy file and checkpoint)")
    p.add_argument("--convert", metavar="DIR", help="instead, write a compact strategy of an earlier format (or "
                   "another codec) again as a store read a chunk at a time: the same rows, its certificate kept")
    p.add_argument("--out", required=True, help="output directory of the compact strategy")
    p.add_argument("--codec", choices=("zlib", "lzma"), default="zlib",
                   help="how each chunk is compressed (default zlib; lzma makes the cap-4 chunks 15%% smaller and "
                   "3.7 times slower to read)")
    p.add_argument("--min-reach", type=float, default=1e-7, metavar="P", action=_InRange, low=0.0, high=0.5,
                   help="drop rows a seat's own play reaches less often than this (default 1e-7; 0 keeps all)")
    p.add_argument("--part-mb", type=float, metavar="MB", action=_InRange, low=0.001, high=50.0,
                   help="at most this many MB a part file (default 50)")
    p.add_argument("--bits", type=int, choices=(4, 5, 6, 7, 8, 16), default=8,
                   help="bits a probability (default 8: 255ths; 4 to 7 for fewer levels and a smaller file, 16 for "
                   "a strategy closer than about 1 mbb/hand)")
    p.add_argument("--fine-reach", type=float, metavar="P", action=_InRange, low=0.0, high=1.0,
                   help="rows reached less often than this keep coarser probabilities: a row of reach r steps by "
                   "the largest divisor of the levels at most P/r (reach times step at most P's; default: every "
                   "kept row at full --bits)")
    p.add_argument("--threshold", type=float, default=0.0, metavar="T",
                   help="drop each kept row's actions played less often than T (a fraction below 0.2) and "
                   "renormalise the rest (default 0: the strategy as solved); certify the result")
    p.add_argument("--no-certify", action="store_true",
                   help="skip the certificate (the exact best response to the compact strategy; minutes at cap 4)")
    p.add_argument("--force", action="store_true", help="replace a compact strategy already in --out")
    p.set_defaults(func=cmd_compact)

    p = sub.add_parser("plan", help="sizes and memory of a solve (on this machine, or on a Ray cluster)",
                       epilog="examples:\n  badugi plan --preset triple-draw\n  badugi plan --config my.toml --json\n"
                              "  badugi plan --preset triple-draw --machines 4 --machine-memory 24 --machine-cores 2\n"
                              "      (the preset on streamed Ray actors: memory per actor, traffic, time, and the\n"
                              "      fewest such machines in float32 and in 16 bits)\n"
                              "  badugi plan --preset triple-draw --full-resolution --machines 175 --machine-memory 24 "
                              "--machine-cores 2\n"
                              "      (the same game without buckets or recall)\n",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_game_args(p)
    p.add_argument("--json", action="store_true", help="print the plan as one JSON object")
    p.add_argument("--machines", type=int, action=_InRange, low=1,
                   help="plan a solve over the streamed tree on a Ray cluster of this many machines, one streamed "
                   "actor each (a game with card buckets in every round and a recall, or none)")
    p.add_argument("--full-resolution", action="store_true",
                   help="plan the game without its card buckets and recall (the whole history, every value class)")
    p.add_argument("--machine-memory", type=float, metavar="GIB", action=_InRange, above=0,
                   help="with --machines: memory of each machine")
    p.add_argument("--machine-cores", type=int, metavar="N", action=_InRange, low=1,
                   help="with --machines: cores of each machine")
    p.set_defaults(func=cmd_plan)
    return parser


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):
        # `badugi export ... | head`: stop quietly when the reader goes away.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # a bad option (one line already on stderr), --help or --version
        return stop.code if isinstance(stop.code, int) else 2
    try:
        return args.func(args)
    except ValueError as err:
        print(f"badugi {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        print(f"badugi {args.command}: {str(stop) or 'interrupted'}", file=sys.stderr)
        return 130
    except OSError as err:
        # A full disk, a file size limit, a folder that vanished: files already written stand.
        where = f": {err.filename}" if getattr(err, "filename", None) else ""
        print(f"badugi {args.command}: error: {err.strerror or err}{where}", file=sys.stderr)
        return 1
    except MemoryError:
        print(f"badugi {args.command}: error: out of memory ('badugi plan' says what a game needs)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
