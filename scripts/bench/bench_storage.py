"""16-bit storage against float32 storage: the same solve at equal iterations, side by side.

    python scripts/bench/bench_storage.py --preset double-draw --cap 4 --point 64:1d --iterations 100 200 400

One 32-bit engine (:class:`solver.cfr.abstract.AbstractEngine`) and one 16-bit engine
(:class:`solver.cfr.quantized.QuantizedEngine`, ``storage_bits = 16``) of the same abstraction
(``--point BUCKETS:RULE`` as in scripts/bench/frontier.py) run in turns of ``--turn``
iterations, so both see the same machine; at each count of ``--iterations`` both are certified
at full resolution and measured in the abstract game. Prints seconds per iteration, the bytes an
entry of each storage takes (the arrays themselves: for 16 bits, the integers, the row scales and
the threads' group buffers), and the certificates with their ratio.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numba  # noqa: E402

from frontier import parse_point  # noqa: E402
from solver.cfr.abstract import AbstractEngine  # noqa: E402
from solver.cfr.quantized import QuantizedEngine  # noqa: E402
from solver.game.config import load_preset  # noqa: E402


def storage_bytes(engine) -> int:
    if isinstance(engine, QuantizedEngine):
        return engine.storage_bytes
    return engine.regret.nbytes + engine.strat_sum.nbytes + engine._delta.nbytes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="double-draw")
    parser.add_argument("--cap", type=int, default=4)
    parser.add_argument("--point", default="64:1d")
    parser.add_argument("--iterations", type=int, nargs="+", default=[100, 200, 400])
    parser.add_argument("--turn", type=int, default=25, help="iterations each engine runs before the other's turn")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    base = load_preset(args.preset)
    config = dataclasses.replace(base, cap=args.cap, **parse_point(args.point, base.rounds))
    engines = {32: AbstractEngine(config), 16: QuantizedEngine(dataclasses.replace(config, storage_bits=16))}
    seconds = {bits: 0.0 for bits in engines}
    rows = []
    for target in sorted(args.iterations):
        while engines[32].iteration < target:
            step = min(args.turn, target - engines[32].iteration)
            for bits, engine in engines.items():
                t0 = time.perf_counter()
                engine.run_iterations(step)
                seconds[bits] += time.perf_counter() - t0
        row = {"iterations": target}
        for bits, engine in engines.items():
            x = engine.exploitability()
            row[bits] = {"certified_mbb": x.exploitability_mbb, "game_value_mbb": x.game_value_mbb,
                         "abstract_mbb": engine.progress_exploitability().exploitability_mbb,
                         "seconds_per_iteration": seconds[bits] / target,
                         "bytes_per_entry": storage_bytes(engine) / engine.layout.n_entries}
        row["ratio"] = row[16]["certified_mbb"] / row[32]["certified_mbb"]
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    data = {"game": config.describe(), "entries": int(engines[32].layout.n_entries),
            "threads": numba.get_num_threads(), "date": time.strftime("%Y-%m-%d"),
            "command": "python scripts/bench/bench_storage.py " + " ".join(argv or sys.argv[1:]), "rows": rows}
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"{data['game']}: {data['entries']:,} entries, {data['threads']} threads")
    print("| iterations | 32-bit certified | 16-bit certified | 16 / 32 | 32-bit abstract | 16-bit abstract | "
          "s/it 32 | s/it 16 | bytes/entry 32 | bytes/entry 16 |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        a, b = r[32], r[16]
        print(f"| {r['iterations']} | {a['certified_mbb']:.2f} | {b['certified_mbb']:.2f} | {r['ratio']:.3f} | "
              f"{a['abstract_mbb']:.2f} | {b['abstract_mbb']:.2f} | {a['seconds_per_iteration']:.3f} | "
              f"{b['seconds_per_iteration']:.3f} | {a['bytes_per_entry']:.2f} | {b['bytes_per_entry']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
