"""The store's codecs on the committed cap-4 strategy (issue 57): size and reading time of every
chunk compressed with zlib (level 9, the default) and with lzma (preset 6).

    python scripts/bench/store_codecs.py
    python scripts/bench/store_codecs.py --strategy DIR

Reads each chunk of the store (its expanded bytes), compresses it with both codecs, and times
decompressing all of them on one thread, each codec timed twice in alternation (ABAB); prints the
sizes in MB and the seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from solver.cfr.store import CODECS, CompactStore, compress, decompress  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strategy", default=str(ROOT / "results" / "triple-draw-cap4" / "compact"))
    args = parser.parse_args(argv)
    store = CompactStore(args.strategy)
    raw = [store.read_blob(blob, f"chunk {k + 1}") for k, blob in enumerate(store.chunk_blobs)]
    print(f"{args.strategy}: {len(raw)} chunks, {sum(map(len, raw)) / 1e6:.1f} MB expanded")
    packed = {}
    for codec in CODECS:
        t = time.perf_counter()
        packed[codec] = [compress(codec, data) for data in raw]
        print(f"  {codec}: {sum(map(len, packed[codec])) / 1e6:.1f} MB, compressed in {time.perf_counter() - t:.1f} s")
    seconds = {codec: [] for codec in CODECS}
    for _ in range(2):
        for codec in CODECS:
            t = time.perf_counter()
            for data in packed[codec]:
                decompress(codec, data)
            seconds[codec].append(time.perf_counter() - t)
    for codec in CODECS:
        print(f"  {codec}: every chunk read in {' and '.join(f'{s:.2f}' for s in seconds[codec])} s (one thread)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
