#!/usr/bin/env bash
# Before and after the profile-driven fixes, measured back to back on this machine.
#   bash scripts/bench/before_after.sh                 # all three
#   bash scripts/bench/before_after.sh walks           # only the third
# 1. evaluator (commit acc6fef -> 741868d): no allocation per hand (a sorting network in
#    registers) and input checks inside the kernel instead of numpy passes.
# 2. cfr (commit 836c578 -> c73771a): action-outer, state-inner loops, so the strategy,
#    value-combining and best-response loops vectorise.
# 3. walks (commit 52238db -> AFTER, default HEAD): row views instead of signed flat offsets
#    (Numba's wraparound made the loads gathers), unsigned draw-table indices, one reciprocal
#    per state in regret matching, a four-chain showdown scan, fewer per-child views, a trunk
#    walk without wasted values, and walks cut at the first draws.
# Each side runs in a temporary worktree with its own empty Numba cache.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python}
AFTER=${AFTER:-$(git rev-parse --short HEAD)}
wanted=${*:-evaluator cfr walks}
work=$(mktemp -d)
cleanup() {
  for dir in "$work"/*/; do git worktree remove --force "$dir" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

side() {  # side NAME COMMIT: a worktree of COMMIT at $work/NAME
  git worktree add -q --detach "$work/$1" "$2"
}

if [[ " $wanted " == *" evaluator "* ]]; then
  side ev-before acc6fef; side ev-after 741868d
  echo "== evaluator: batch hands/s (5,000,000 random hands)"
  for s in ev-before ev-after; do
    (cd "$work/$s" && NUMBA_CACHE_DIR="$work/cache-$s" $PY scripts/bench_evaluator.py --hands 5000000 \
       --pokerkit-hands 5000 --no-compile | grep -E "evaluate_batch|BadugiHand" | sed "s/^/$s: /")
  done
fi
if [[ " $wanted " == *" cfr "* ]]; then
  side cfr-before 836c578; side cfr-after c73771a
  echo "== CFR: seconds per single-draw iteration, 1 thread and 2"
  for s in cfr-before cfr-after; do
    (cd "$work/$s" && NUMBA_CACHE_DIR="$work/cache-$s" $PY scripts/bench_solver.py throughput \
       | grep -E "seconds_per_iteration|state_updates" | sed "s/^/$s: /")
  done
fi
if [[ " $wanted " == *" walks "* ]]; then
  side walks-before 52238db; side walks-after "$AFTER"
  echo "== CFR walks: seconds per single-draw iteration, 1 thread and 2 (52238db -> $AFTER)"
  for round in 1 2; do
    for s in walks-before walks-after; do
      (cd "$work/$s" && NUMBA_CACHE_DIR="$work/cache-$s" $PY scripts/bench/bench_solver.py throughput \
         | grep -E "seconds_per_iteration|copy_bytes_per_s|share" | sed "s/^/$s (run $round): /")
    done
  done
fi
