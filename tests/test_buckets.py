"""Card buckets: features from the exact transitions, determinism, order, draw legality."""

import numpy as np
import pytest

from abstractions.buckets import (LAST_ROUND_FEATURES, bucket_map, compute_bucket_map, final_strength,
                                  range_strengths, reference_policy_matrix)
from abstractions.transitions import reference_draw
from abstractions.evaluator import get_evaluator
from abstractions.transitions import get_draw_model


def test_reference_policy_and_strength():
    policy = reference_policy_matrix(13, 4, 4)
    assert np.allclose(policy.sum(axis=1), 1.0)
    ev = get_evaluator()
    badugi = ev.value_card_count == 4
    assert np.all(np.diag(policy)[badugi] == 1.0)  # a badugi stands pat
    model = get_draw_model()
    for draws in (0, 1, 3):
        strength = final_strength(13, 4, 4, draws)
        assert np.all(np.diff(strength) <= 0) and 0 <= strength.min() and strength.max() < 1
        assert strength[0] > strength[715] > strength[-1]  # best badugi > best three-card > worst
        opponent = model.deal_prob @ np.linalg.matrix_power(policy, draws)
        # Against an identical, independent opponent a player wins half (ties count half).
        assert opponent @ strength == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("draws, round_index, k", [(1, 0, 100), (2, 1, 200), (3, 0, 300), (3, 3, 100)])
def test_requested_bucket_count_and_determinism(draws, round_index, k):
    labels = compute_bucket_map(13, 4, 4, draws, round_index, k, seed=3)
    assert labels.min() == 0 and labels.max() == k - 1
    assert np.array_equal(labels, compute_bucket_map(13, 4, 4, draws, round_index, k, seed=3))


def test_full_resolution_is_one_class_per_bucket():
    ev = get_evaluator(6, 3, 3)
    labels = compute_bucket_map(6, 3, 3, 1, 0, ev.n_values)
    assert sorted(labels) == list(range(ev.n_values))


@pytest.mark.parametrize("draws", [1, 2, 3])
def test_last_round_buckets_follow_strength(draws):
    """A better made hand never lands in a bucket with lower mean strength at the last round."""
    labels = compute_bucket_map(13, 4, 4, draws, draws, 80)
    strength = final_strength(13, 4, 4, draws)
    means = np.array([strength[labels == b].mean() for b in range(labels.max() + 1)])
    assert np.all(np.diff(means) < 0)  # bucket 0 is the strongest
    order = np.argsort(-strength)
    assert np.all(np.diff(means[labels[order]]) <= 0)


@pytest.mark.parametrize("draws, round_index", [(1, 0), (2, 0), (2, 1), (3, 2)])
def test_buckets_before_a_draw_share_legal_draws(draws, round_index):
    legal = get_draw_model().legal
    labels = compute_bucket_map(13, 4, 4, draws, round_index, 150)
    for b in range(labels.max() + 1):
        rows = legal[labels == b]
        assert (rows == rows[0]).all()


def test_cache_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("BADUGI_CACHE_DIR", str(tmp_path))
    first = bucket_map(13, 4, 4, 2, 0, 120, seed=1)
    files = list(tmp_path.glob("buckets-*.npz"))
    assert len(files) == 1
    assert np.array_equal(bucket_map(13, 4, 4, 2, 0, 120, seed=1), first)
    files[0].write_bytes(b"damaged")
    assert np.array_equal(bucket_map(13, 4, 4, 2, 0, 120, seed=1), first)


@pytest.mark.parametrize("args, problem", [((13, 4, 4, 1, 2, 10), "round_index"), ((13, 4, 4, 1, 0, 0), "n_buckets"),
                                           ((13, 4, 4, 1, 1, 10, 0, "equity"), "last")])
def test_bad_arguments(args, problem):
    with pytest.raises(ValueError, match=problem):
        compute_bucket_map(*args)


@pytest.mark.parametrize("draws", [1, 2, 3])
def test_strength_against_each_last_draws_range_averages_to_strength(draws):
    """The opponent's range after each count he draws last, weighted by how often he draws it,
    is his whole range: the strengths against the ranges average to the strength against him.
    Each column orders the classes as strength does; pat hands are the hardest to beat."""
    columns = range_strengths(13, 4, 4, draws)
    policy = reference_policy_matrix(13, 4, 4)
    before = get_draw_model().deal_prob @ np.linalg.matrix_power(policy, draws - 1)
    drawn = np.array([reference_draw(int(c), 4) for c in get_evaluator().value_card_count])
    weights = np.array([before[drawn == d].sum() for d in sorted(set(drawn.tolist()))])
    assert columns.shape == (1092, 4)
    assert columns @ weights == pytest.approx(final_strength(13, 4, 4, draws), abs=1e-12)
    assert np.all(np.diff(columns, axis=0) <= 1e-15)
    assert np.all(columns[:, 0] <= columns[:, 1:].min(axis=1) + 1e-12)   # against pat hands
    assert range_strengths(13, 4, 4, 0).shape == (1092, 1)


def test_last_round_buckets_against_ranges_are_other_strength_intervals(tmp_path, monkeypatch):
    """Against the ranges, the last round's buckets are still intervals of strength, numbered from
    the strongest, as many as asked; their edges move (fewer among the best badugis, more below
    them), and they are cached apart from the strength buckets."""
    monkeypatch.setenv("BADUGI_CACHE_DIR", str(tmp_path))
    assert LAST_ROUND_FEATURES == ("strength", "ranges")
    strength = final_strength(13, 4, 4, 3)
    plain = bucket_map(13, 4, 4, 3, 3, 40)
    ranges = bucket_map(13, 4, 4, 3, 3, 40, last="ranges")
    assert len(list(tmp_path.glob("buckets-*.npz"))) == 2
    order = np.argsort(-strength, kind="stable")
    for labels in (plain, ranges):
        assert labels.max() == 39 and np.all(np.diff(labels[order]) >= 0)
    assert not np.array_equal(plain, ranges)
    badugis = get_evaluator().value_card_count == 4
    assert len(set(ranges[badugis])) < len(set(plain[badugis]))
    with pytest.raises(ValueError, match="last"):
        bucket_map(13, 4, 4, 3, 2, 40, last="equity")
    # Only the last round's features change: an earlier round's map is the same file.
    assert np.array_equal(bucket_map(13, 4, 4, 3, 2, 40, last="ranges"), bucket_map(13, 4, 4, 3, 2, 40))
