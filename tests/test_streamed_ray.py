"""What the streamed Ray engine does without Ray (solver/cfr/streamed_ray.py); its runs on a Ray
runtime are in tests/test_ray.py."""

import numpy as np
import pytest

from solver.cfr.actors import RayError
from solver.cfr.planning import owned_groups
from solver.cfr.streamed_ray import local_pieces


@pytest.mark.parametrize("most", [1, 5, 37, 10 ** 6])
def test_local_pieces_cover_an_actors_entries_once_in_order(most):
    """An actor's local entries (its slots' entries, slot after slot) map back to the layout's
    entries piece by piece, whole slots a piece, whatever the piece size."""
    rng = np.random.default_rng(0)
    offsets = np.concatenate([[0], np.cumsum(rng.integers(1, 9, 1000))])
    slots = np.sort(rng.choice(1000, 300, replace=False))
    base = np.concatenate([[0], np.cumsum(offsets[slots + 1] - offsets[slots])])
    pieces = list(local_pieces(slots, base, offsets, most))
    assert np.array_equal(np.concatenate([index for _, _, index in pieces]),
                          np.concatenate([np.arange(offsets[s], offsets[s + 1]) for s in slots]))
    assert [lo for lo, _, _ in pieces][1:] == [hi for _, hi, _ in pieces][:-1]
    assert pieces[0][0] == 0 and pieces[-1][1] == base[-1]
    assert all(lo in base and hi in base for lo, hi, _ in pieces)


def test_actors_own_whole_groups():
    """Cut groups dealt to actors: every cut once, no group split, the biggest first; more actors
    than groups is a one-line error."""
    cut_group = np.array([0, 0, 1, 2, 2, 2, 3, 1, 0])
    blocks = owned_groups(cut_group, 2)
    assert sorted(np.concatenate(blocks).tolist()) == list(range(9))
    for block in blocks:
        assert not set(cut_group[block]) & set(np.delete(cut_group, block))
    assert sorted(len(b) for b in blocks) == [4, 5]
    with pytest.raises(RayError, match="4 group"):
        owned_groups(cut_group, 5)
