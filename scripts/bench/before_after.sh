#!/usr/bin/env bash
# Before and after the two profile-driven fixes, measured back to back on this machine.
#   bash scripts/bench/before_after.sh
# 1. Evaluator (commit acc6fef -> 741868d): no allocation per hand (a sorting network in
#    registers) and input checks inside the kernel instead of numpy passes.
# 2. CFR walks (commit 836c578 -> c73771a): action-outer, state-inner loops, so the strategy,
#    value-combining and best-response loops vectorise.
# Each side runs in a temporary worktree with its own empty Numba cache.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/ev-before" 2>/dev/null; git worktree remove --force "$work/ev-after" 2>/dev/null;
      git worktree remove --force "$work/cfr-before" 2>/dev/null; git worktree remove --force "$work/cfr-after" 2>/dev/null;
      rm -rf "$work"' EXIT
for side in ev-before:acc6fef ev-after:741868d cfr-before:836c578 cfr-after:c73771a; do
  git worktree add -q --detach "$work/${side%%:*}" "${side##*:}"
done
echo "== evaluator: batch hands/s (5,000,000 random hands)"
for side in ev-before ev-after; do
  (cd "$work/$side" && NUMBA_CACHE_DIR="$work/cache-$side" $PY scripts/bench_evaluator.py --hands 5000000 \
     --pokerkit-hands 5000 --no-compile | grep -E "evaluate_batch|BadugiHand" | sed "s/^/$side: /")
done
echo "== CFR: seconds per single-draw iteration, 1 thread and 2"
for side in cfr-before cfr-after; do
  (cd "$work/$side" && NUMBA_CACHE_DIR="$work/cache-$side" $PY scripts/bench_solver.py throughput \
     | grep -E "seconds_per_iteration|state_updates" | sed "s/^/$side: /")
done
