"""The ``badugi`` command: its arguments, their help and examples, and the one place errors
become exit codes.

Each subcommand is a function ``cmd_NAME(args) -> exit code`` of :mod:`solver.commands`; bad
input raises ValueError (or a subclass), which :func:`main` turns into one line on stderr and
exit status 2.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys

from .cfr.algorithms import algorithm_help, algorithm_names
from .commands import (DEFAULT_STRATEGY, DEFAULT_TARGET_MBB, DEFAULT_TIME_LIMIT, cmd_compact, cmd_eval, cmd_exploit,
                       cmd_explore, cmd_export, cmd_match, cmd_plan, cmd_play, cmd_plot, cmd_review, cmd_show,
                       cmd_solve)

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


SOLVE_EXAMPLES = f"""\
Without a stopping rule a solve runs to {DEFAULT_TARGET_MBB} mbb/hand or {DEFAULT_TIME_LIMIT:.0f} s.

examples:
  badugi solve                                  single-draw preset, full resolution
  badugi solve --preset tiny-single-draw --iterations 2000 --out runs/tiny
  badugi solve --preset double-draw --time-limit 1800 --out runs/dd
  badugi solve --out runs/dd --resume --time-limit 3600    continue an interrupted run
  badugi solve --preset single-draw --lock never-snows --out runs/vs-no-snow
"""


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


def _fractions(text: str) -> tuple[float, ...]:
    """``--certify-at``'s value: fractions of the time limit, comma-separated, each between 0 and 1."""
    try:
        values = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"fractions of the time limit, such as 0.75,0.875, got {text!r}") from None
    if not all(0.0 < v < 1.0 for v in values):   # (NaN is not between them)
        raise argparse.ArgumentTypeError(f"each fraction of the time limit between 0 and 1 (the end is certified "
                                         f"anyway), got {text!r}")
    return values


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
    p.add_argument("--certify-at", type=_fractions, metavar="F[,F...]",
                   help="certify at these fractions of --time-limit too (solving seconds; a resumed run's count), "
                   "e.g. 0.75,0.875: with the end's certificate, the summary's certified_spread, (largest - "
                   "smallest) / smallest, says whether the run converged (issue 59: at most 0.03)")
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
