import numpy as np

from accord.core import (
    individually_rational,
    kalai_point,
    kalai_smorodinsky_point,
    max_welfare_point,
    nash_point,
)


def test_split_the_pie_known_values():
    share = np.arange(11) / 10
    u = np.stack([share, 1 - share], axis=1)
    assert nash_point(u, [0.0, 0.0]) == 5
    assert kalai_point(u, [0.0, 0.0]) == 5
    assert nash_point(u, [0.2, 0.4]) == 4  # maximises (x-0.2)(0.6-x): x = 0.4
    assert kalai_point(u, [0.2, 0.4]) == 4  # equal gains: x - 0.2 = 0.6 - x
    assert nash_point(u, [0.6, 0.6]) is None  # no individually rational outcome


def test_kalai_smorodinsky_differs_from_kalai():
    u = np.array([[0.0, 2.0], [0.5, 0.5], [0.4, 1.0], [1.0, 0.0]])
    d = [0.0, 0.0]
    assert kalai_point(u, d) == 1  # equal absolute gains: min gain 0.5
    # ideal point (1, 2): relative gains 0.25 at index 1, 0.4 at index 2
    assert kalai_smorodinsky_point(u, d) == 2


def test_nash_matches_bruteforce_three_parties():
    rng = np.random.default_rng(1)
    u = rng.random((200, 3))
    d = np.array([0.2, 0.3, 0.1])
    ir = individually_rational(u, d)
    prod = np.where(ir, np.prod(u - d, axis=1), -np.inf)
    assert nash_point(u, d) == int(np.argmax(prod))
    assert max_welfare_point(u) == int(np.argmax(u.sum(axis=1)))
