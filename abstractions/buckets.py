"""Card buckets: per-round groupings of value classes for games too big at full resolution.

For betting round ``r`` of a game with ``draws`` draws, ``draws - r`` draws are
still to come. Each value class gets a feature vector from the evaluator's
exact transitions:

- *showdown strength* of a final class: the probability that it beats an
  opponent who was dealt a hand and drew every draw under the reference
  policy, ties counting half;
- *draw potential*: the distribution of that strength after the remaining
  draws under a reference draw policy (stand pat with a badugi, otherwise keep
  the value's cards and draw the rest), as a histogram CDF over equal-width
  bins. k-means on histogram CDFs approximates clustering by earth mover's
  distance (Johanson et al. 2013, "Evaluating state-space abstractions in
  extensive-form games").

Rounds followed by a draw are clustered within each card count, so every
class of a bucket has the same legal draws. Buckets are numbered by mean final
strength, 0 = strongest, and are deterministic given the seed.

>>> int(bucket_map(13, 4, 4, draws=1, round_index=1, n_buckets=50).max()) + 1
50
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.cluster.vq import kmeans2

from .evaluator import get_evaluator
from .files import cached_arrays
from .transitions import get_draw_model, reference_draw

BUCKETS_VERSION = 2
HISTOGRAM_BINS = 64
LAST_ROUND_FEATURES = ("strength", "ranges")   # the last round's buckets: see compute_bucket_map


def reference_policy_matrix(ranks: int, suits: int, hand_size: int) -> np.ndarray:
    """(N, N) next-class distribution when every class follows the reference draw policy."""
    ev = get_evaluator(ranks, suits, hand_size)
    model = get_draw_model(ranks, suits, hand_size)
    counts = ev.value_card_count.astype(int)
    matrix = np.zeros((model.n_values, model.n_values))
    for v in range(model.n_values):
        matrix[v] = model.next_distribution(v, reference_draw(counts[v], hand_size))
    return matrix


def final_strength(ranks: int, suits: int, hand_size: int, draws: int) -> np.ndarray:
    """Showdown strength of each class against a reference opponent after ``draws`` draws."""
    model = get_draw_model(ranks, suits, hand_size)
    opponent = model.deal_prob.copy()
    policy = reference_policy_matrix(ranks, suits, hand_size)
    for _ in range(draws):
        opponent = opponent @ policy
    return _strength_against(opponent)


def _strength_against(opponent: np.ndarray) -> np.ndarray:
    """Each final class's chance to beat a hand drawn from ``opponent`` (class probabilities),
    a tie counting half: his mass on weaker classes (higher index), summed from the weak end so
    that the tiny strengths of the worst hands keep their precision."""
    worse = np.cumsum(opponent[::-1])[::-1] - opponent
    return worse + 0.5 * opponent


def _check_last(last: str) -> None:
    if last not in LAST_ROUND_FEATURES:
        raise ValueError(f"last must be one of {', '.join(LAST_ROUND_FEATURES)}, got {last!r}")


def range_strengths(ranks: int, suits: int, hand_size: int, draws: int) -> np.ndarray:
    """(N, K): each final class's showdown strength against the reference opponent *given how many
    cards he drew last* (one column per count he draws with some mass, fewest first; a tie counts
    half). The draw count is public, so these are the ranges a last-round decision faces: a
    hand that beats most one-card draws may beat few pat hands. With no draw, the dealt range."""
    model = get_draw_model(ranks, suits, hand_size)
    ev = get_evaluator(ranks, suits, hand_size)
    before = model.deal_prob.copy()
    if draws == 0:
        ranges = [before]
    else:
        policy = reference_policy_matrix(ranks, suits, hand_size)
        for _ in range(draws - 1):
            before = before @ policy
        counts = ev.value_card_count.astype(int)
        drawn = np.array([reference_draw(int(c), hand_size) for c in counts])
        ranges = []
        for d in sorted(set(drawn.tolist())):
            mass = np.where(drawn == d, before, 0.0)
            if mass.sum() > 0.0:
                after = mass @ policy
                ranges.append(after / after.sum())
    return np.column_stack([_strength_against(opponent) for opponent in ranges])


def class_features(ranks: int, suits: int, hand_size: int, draws: int, round_index: int) -> np.ndarray:
    """(N, HISTOGRAM_BINS + 1): CDF of final strength after the draws left at ``round_index``,
    then the class's own showdown strength."""
    strength = final_strength(ranks, suits, hand_size, draws)
    policy = reference_policy_matrix(ranks, suits, hand_size)
    future = np.eye(len(strength))
    for _ in range(draws - round_index):
        future = future @ policy
    bins = np.minimum((strength * HISTOGRAM_BINS).astype(int), HISTOGRAM_BINS - 1)
    histogram = np.zeros((len(strength), HISTOGRAM_BINS))
    for b in range(HISTOGRAM_BINS):
        histogram[:, b] = future[:, bins == b].sum(axis=1)
    # The class's own strength, exact, as one more column on the scale of the CDF's
    # distances: otherwise hands that stand pat differ only by their bin.
    return np.column_stack([np.cumsum(histogram, axis=1), np.sqrt(HISTOGRAM_BINS) * strength])


def _cluster(features: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Dense labels 0..k'-1 from k-means (k' <= k if clusters come out empty)."""
    if k >= len(features):
        return np.arange(len(features))
    if k <= 1:
        return np.zeros(len(features), dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty cluster is dropped below
        _, labels = kmeans2(features, k, minit="++", seed=np.random.default_rng(seed), iter=50)
    return np.unique(labels, return_inverse=True)[1]


def _shares(sizes: np.ndarray, total: int) -> np.ndarray:
    """Split ``total`` buckets over groups in proportion to their sizes: at least 1, at most the size."""
    share = np.maximum(1, np.floor(total * sizes / sizes.sum()).astype(int))
    share = np.minimum(share, sizes)
    order = np.argsort(-(total * sizes / sizes.sum() - share), kind="stable")
    i = 0
    while share.sum() < min(total, sizes.sum()):
        g = order[i % len(order)]
        if share[g] < sizes[g]:
            share[g] += 1
        i += 1
    return share


def compute_bucket_map(ranks: int, suits: int, hand_size: int, draws: int, round_index: int, n_buckets: int,
                       seed: int = 0, last: str = "strength") -> np.ndarray:
    """Bucket of every value class at a betting round (0 = strongest); see the module docstring.
    ``last`` (the last round's features): "strength" against the reference opponent, or "ranges",
    against each range he holds after drawing each count (:func:`range_strengths`)."""
    ev = get_evaluator(ranks, suits, hand_size)
    if not 0 <= round_index <= draws:
        raise ValueError(f"round_index must be 0 to {draws}, got {round_index}")
    if n_buckets < 1:
        raise ValueError(f"n_buckets must be at least 1, got {n_buckets}")
    _check_last(last)
    if round_index == draws and last == "ranges":
        # The last round against the opponent's ranges, one per draw count: every column orders
        # the classes as strength does, but where they set bucket edges depends on the range
        # (opponent-cluster features; Johanson et al. 2013). Numbered by overall strength.
        groups = [np.arange(ev.n_values)]
        features = np.column_stack([range_strengths(ranks, suits, hand_size, draws),
                                    final_strength(ranks, suits, hand_size, draws)])
    elif round_index == draws:
        # The last round: strength alone, a single number, so buckets are strength intervals.
        groups = [np.arange(ev.n_values)]
        features = final_strength(ranks, suits, hand_size, draws)[:, None]
    else:
        features = class_features(ranks, suits, hand_size, draws, round_index)
        counts = ev.value_card_count
        groups = [np.nonzero(counts == m)[0] for m in sorted(set(counts.tolist()))]
    shares = _shares(np.array([len(g) for g in groups]), n_buckets)
    labels = np.empty(ev.n_values, dtype=np.int64)
    next_label = 0
    for group, k in zip(groups, shares):
        local = _cluster(features[group], int(k), seed)
        labels[group] = local + next_label
        next_label += local.max() + 1
    # Number buckets by mean final strength (expected CDF complement; in the last round, strength),
    # strongest first.
    if round_index == draws:
        expected = features[:, -1]
    else:
        expected = HISTOGRAM_BINS - features[:, :-1].sum(axis=1)
    means = np.array([expected[labels == b].mean() for b in range(next_label)])
    rank = np.empty(next_label, dtype=np.int64)
    rank[np.argsort(-means, kind="stable")] = np.arange(next_label)
    labels = rank[labels]
    if round_index == draws and np.any(np.diff(labels) < 0):
        # The showdown of a bucket game sums the opponent's buckets in order (BucketGame): the last
        # round's buckets must be intervals of strength (classes are numbered strongest first).
        raise AssertionError("the last round's buckets are not intervals of strength")
    return labels


def bucket_map(ranks: int, suits: int, hand_size: int, draws: int, round_index: int, n_buckets: int,
               seed: int = 0, use_cache: bool = True, last: str = "strength") -> np.ndarray:
    """:func:`compute_bucket_map`, cached on disk beside the draw tables."""
    _check_last(last)
    last = last if round_index == draws else "strength"   # (only the last round's features change)
    kind = "" if last == "strength" else f"-{last}"
    name = (f"buckets-v{BUCKETS_VERSION}-{ranks}x{suits}-h{hand_size}-d{draws}-r{round_index}-k{n_buckets}-s{seed}"
            f"{kind}.npz")
    return cached_arrays(name, ("labels",), lambda: {"labels": compute_bucket_map(
        ranks, suits, hand_size, draws, round_index, n_buckets, seed, last)}, use_cache)["labels"]


@dataclass(frozen=True)
class BucketGame:
    """The card abstraction as a game of its own, for walks over bucket vectors.

    A player's private state at round ``r`` is his bucket of that round
    (``row_of[r]``: class -> bucket). Dealing puts him in a round-0 bucket with
    the deal's mass; drawing ``d`` after round ``r`` (standing pat included)
    moves a bucket's classes, weighted by how often the reference policy holds
    each of them at round ``r`` (the deal pushed through the reference draws),
    to round ``r + 1``'s buckets. The last round's buckets are strength
    intervals numbered strongest first, so a showdown between buckets is an
    ordered comparison, and one bucket against itself a tie (the symmetric
    expectation when both hold its classes in the same proportions).

    Arrays follow :class:`abstractions.transitions.DrawModel`, with ``legal``
    and ``keep_set`` per round; states are padded to the most buckets of any
    round (a padding state carries no mass and may do what bucket 0 may).
    """

    hand_size: int
    n_values: int
    deal_prob: np.ndarray   # (n,) mass of each round-0 bucket
    legal: np.ndarray       # (rounds, n, hand_size + 1) bool
    keep_set: np.ndarray    # (rounds, n, hand_size + 1) transition row of (round, bucket, draw), -1 if none
    set_size: np.ndarray    # (rows,) cards kept by the row's draw
    set_start: np.ndarray   # (rows + 1,) CSR starts
    set_value: np.ndarray   # next round's bucket
    set_prob: np.ndarray
    pat_moves: bool = True
    round_states: np.ndarray | None = None  # (rounds,) the buckets of each round (the states not padding)

    @property
    def n_sets(self) -> int:
        return len(self.set_size)


def bucket_game(ranks: int, suits: int, hand_size: int, draws: int, row_of: np.ndarray) -> BucketGame:
    """The bucket game of per-round bucket maps ``row_of`` (rounds, classes); see :class:`BucketGame`."""
    model = get_draw_model(ranks, suits, hand_size)
    policy = reference_policy_matrix(ranks, suits, hand_size)
    rounds = draws + 1
    widths = row_of.max(axis=1) + 1
    n = int(widths.max())
    legal = np.zeros((rounds, n, hand_size + 1), bool)
    keep_set = np.full((rounds, n, hand_size + 1), -1, np.int64)
    sizes, starts, values, probs = [], [0], [], []
    dense = [model.dense(d) if d > 0 else np.eye(model.n_values) for d in range(hand_size + 1)]
    weight = model.deal_prob.copy()  # the reference class distribution of the current round
    for r in range(rounds):
        members = [np.nonzero(row_of[r] == b)[0] for b in range(widths[r])]
        for b, classes in enumerate(members):
            legal[r, b] = model.legal[classes[0]]
        legal[r, widths[r]:] = legal[r, 0]
        if r < draws:
            for b, classes in enumerate(members):
                w = weight[classes]
                w = w / w.sum() if w.sum() > 0 else np.full(len(classes), 1.0 / len(classes))
                for d in np.nonzero(legal[r, b])[0]:
                    nxt = np.bincount(row_of[r + 1], weights=w @ dense[d][classes], minlength=n)
                    keep_set[r, b, d] = len(sizes)
                    sizes.append(hand_size - d)
                    kept = np.nonzero(nxt > 0)[0]
                    values.append(kept)
                    probs.append(nxt[kept] / nxt[kept].sum())
                    starts.append(starts[-1] + len(kept))
            weight = weight @ policy
    deal = np.bincount(row_of[0], weights=model.deal_prob, minlength=n)
    if not sizes:  # no draws: one empty row keeps the arrays well formed
        sizes, values, probs = [hand_size], [np.zeros(0, np.int64)], [np.zeros(0)]
        starts.append(0)
    return BucketGame(hand_size, n, deal, legal, keep_set, np.array(sizes, np.int64), np.array(starts, np.int64),
                      np.concatenate(values).astype(np.int64), np.concatenate(probs),
                      round_states=widths.astype(np.int64))
