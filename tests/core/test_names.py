"""``accord.core.names``: counted nouns, and the unknown-name error text."""

from __future__ import annotations

from accord.core.names import counted, unknown_name


def test_counted_puts_the_noun_in_the_right_number() -> None:
    assert counted(1, "episode") == "1 episode"
    assert counted(0, "episode") == "0 episodes"
    assert counted(2, "finished episode") == "2 finished episodes"
    assert counted(12345, "datapoint") == "12,345 datapoints"
    assert counted(3, "policy", "policies") == "3 policies"
    assert counted(1, "policy", "policies") == "1 policy"


def test_unknown_name_suggests_the_close_match() -> None:
    msg = unknown_name("scenario", "buyer-seler", ["buyer-seller", "split"])
    assert msg.startswith("unknown scenario 'buyer-seler' (did you mean 'buyer-seller'?)")
