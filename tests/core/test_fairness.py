import numpy as np

from accord.core import envy_free_mask_two_party, envy_matrix, is_envy_free


def test_envy_free_two_party_known():
    counts = np.array([1, 2, 3])
    va = np.array([4, 0, 2])
    vb = np.array([0, 2, 2])
    # a gets the book and one ball: a values own 6 vs other's 4; b values own 8 vs other's 2
    assert envy_free_mask_two_party(np.array([[1, 0, 1]]), counts, va, vb).tolist() == [True]
    # a gets everything: b envies
    assert envy_free_mask_two_party(np.array([[1, 2, 3]]), counts, va, vb).tolist() == [False]


def test_envy_matrix_n_party():
    shares = np.array([[1, 0], [0, 1], [0, 0]])
    values = np.array([[1, 2], [1, 1], [0, 0]])
    e = envy_matrix(shares, values)
    assert e[0, 1] == 1  # party 0 prefers party 1's share
    assert not is_envy_free(shares, values)
    assert is_envy_free(np.array([[0, 1], [1, 0]]), np.array([[1, 2], [2, 1]]))
