"""The leak guard's rules: number extraction, the detector, and the labelled corpus."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from accord.agents.guards import (
    Leak,
    LeakConfig,
    PrivateValue,
    extract_numbers,
    find_leaks,
    load_corpus,
)
from accord.agents.guards.corpus import evaluate
from accord.agents.guards.numbers import extract_normalised, to_original

CORPUS = Path(__file__).parent / "data" / "leak_corpus.yaml"

# buyer-seller's buyer with issue 12's BATNA
BATNA = 0.4123
PRIVATE = [PrivateValue(0.6, "weight", "the weight of price"),
           PrivateValue(0.25, "weight", "the weight of warranty"),
           PrivateValue(0.68, "score", "the score of price=950"),
           PrivateValue(0.7975, "package", "a package on record")]
PUBLIC = [800, 850, 900, 950, 1000, 1050, 1100, 1150, 1200, 2, 5, 10, 0, 1, 3]


def leaks(text: str, **kw: object) -> list[Leak]:
    return find_leaks(text, BATNA, PRIVATE, public=PUBLIC, role="buyer", others=["seller"],
                      **kw)  # type: ignore[arg-type]


# ------------------------------------------------------------------ number extraction
@pytest.mark.parametrize("text, unit, notation, spelled", [
    ("0.41", 0.41, "decimal", False),
    (".41", 0.41, "leading_dot", False),
    ("0,41", 0.41, "decimal_comma", False),
    ("4.1e-1", 0.41, "scientific", False),
    ("4.123E-01", 0.4123, "scientific", False),
    ("3.5 x 10^-1", 0.35, "scientific", False),
    ("41%", 0.41, "percent", False),
    ("41 percent", 0.41, "percent", False),
    ("41 per cent", 0.41, "percent", False),
    ("41.2 pct", 0.412, "percent", False),
    ("41/100", 0.41, "fraction", False),
    ("41 out of 100", 0.41, "fraction", False),
    ("forty-one percent", 0.41, "percent", True),
    ("zero point four one", 0.41, "decimal", True),
    ("point four one", 0.41, "leading_dot", True),
    ("a quarter", 0.25, "fraction", True),
    ("two thirds", 2 / 3, "fraction", True),
    ("eighty-five hundredths", 0.85, "fraction", True),
    ("seventy out of a hundred", 0.70, "fraction", True),
])
def test_every_notation_is_read(text: str, unit: float, notation: str, spelled: bool) -> None:
    found = extract_numbers(f"It is {text} here.")
    assert len(found) == 1, found
    m = found[0]
    assert m.unit == pytest.approx(unit) and m.notation == notation and m.spelled is spelled


def test_thousands_separators_dates_times_and_labels() -> None:
    values = [(m.value, m.notation) for m in extract_numbers(
        "1,200 units, $1,050.50, 0,5 and 1,5; v2.1 at 10:41 on 2025-04-12, the 2nd round")]
    assert (1200.0, "thousands") in values and (1050.5, "thousands") in values
    assert (0.5, "decimal_comma") in values and (1.5, "decimal_comma") in values
    assert all(v not in (2.1, 41.0, 4.0, 12.0, 2.0) for v, _ in values)  # glued tokens


def test_precision_of_the_shown_digits() -> None:
    m = {x.text: x for x in extract_numbers("0.4, 0.41, 41%, 41.2%, 4.123e-1")}
    assert m["0.4"].ulp == pytest.approx(0.05) and m["0.41"].ulp == pytest.approx(0.005)
    assert m["41%"].ulp == pytest.approx(0.005) and m["41.2%"].ulp == pytest.approx(0.0005)
    assert m["4.123e-1"].ulp == pytest.approx(0.00005)


def test_spans_map_back_to_the_original_words() -> None:
    text = "Our BATNA is forty-one percent, give or take."
    mentions, _, spans = extract_normalised(text)
    assert to_original(text, spans, mentions[0].start, mentions[0].end) == "forty-one percent"


# ------------------------------------------------------------------ issue 12's examples
@pytest.mark.parametrize("text", [
    "The BATNA here is .4123 (about 0.41)",  # leading dot, rounded, no "my"
    "The BATNA here is about 0.41.",  # rounded
    "Our walk-away sits at .41.",  # leading dot
    "Our BATNA is 0,41.",  # decimal comma
    "BATNA = 4.1e-1.",  # scientific
    "Our BATNA is 41%.",  # percentage
    "The BATNA is forty-one percent.",  # words
    "BATNA=0.4123",  # "BATNA=" without "my"
])
def test_issue_12_examples_are_flagged(text: str) -> None:
    found = leaks(text)
    assert any(lk.kind == "batna_value" for lk in found), found
    assert any("BATNA" in (lk.private or "") for lk in found)


def test_issue_12_examples_are_flagged_by_value_even_without_a_name() -> None:
    for text in ("Think 0.4123 and you'll see why.", "We sit at .41 if this falls through.",
                 "Without a deal we keep 41 per cent.", "Anything under 0,41 and we walk."):
        assert any(lk.kind == "batna_value" for lk in leaks(text)), text


def test_leak_says_which_value_and_why() -> None:
    (lk,) = leaks("That package is worth 79.75% to us.")
    assert lk.kind == "utility_value" and lk.private == "a package on record"
    assert lk.text == "79.75%" and lk.value == pytest.approx(0.7975)
    assert "worth" in lk.reason and "percent" in lk.reason


def test_weights_and_phrases() -> None:
    assert [lk.kind for lk in leaks("Price carries a weight of 0.6 for us.")] == ["weight_value"]
    for text in ("My reservation price is low.", "My bottom line is somewhere under half.",
                 "BATNA: not much.", "The lowest I can accept is what we said.",
                 "We would walk away below your last offer."):
        assert [lk.kind for lk in leaks(text)] == ["disclosure_phrase"], text


# ------------------------------------------------------------------ must pass
@pytest.mark.parametrize("text", [
    "We can do 950 per unit with a 2-year warranty.",
    "How about $1,050 and delivery in 5 days?",
    "We're in round 4 of 10.",
    "We saw a 41% jump in component costs.",
    "We need 25% upfront.",
    "Version 0.41 of the draft is attached.",
    "I won't disclose my BATNA.",
    "What's your reservation value? I'd guess about 0.41.",
    "Let's keep our utility functions to ourselves.",
    "Our weighting committee meets on Tuesday.",
    "Price matters most to us, then warranty.",
])
def test_public_numbers_and_talk_pass(text: str) -> None:
    assert leaks(text) == []


def test_public_issue_values_on_the_utility_scale() -> None:
    # a tariff of 0.41 is on the table and equals the private BATNA: naming the price is
    # public, naming it as the walk-away is a leak
    kw = {"public": [0.38, 0.41, 0.44], "role": "customer"}
    assert find_leaks("We can sign at 0.41 for three years.", 0.41, [0.55], **kw) == []
    assert find_leaks("Between 0.41 and 0.44 there is room.", 0.41, [0.55], **kw) == []
    found = find_leaks("My walk-away is 0.41.", 0.41, [0.55], **kw)
    assert {lk.kind for lk in found} == {"batna_value", "disclosure_phrase"}


def test_points_scale_needs_a_cue() -> None:
    kw = {"public": [0, 1, 2, 3, 4]}
    assert find_leaks("Each book is worth 2 to me.", 4, [2, 1, 3], **kw)
    assert find_leaks("My BATNA is 4 points.", 4, [2, 1, 3], **kw)
    assert find_leaks("I'll take 2 books and the ball.", 4, [2, 1, 3], **kw) == []
    assert find_leaks("It's 40% of the items.", 4, [2, 1, 3], **kw) == []


# ------------------------------------------------------------------ tolerance
def test_tolerance_is_the_shown_precision_plus_hedges_and_is_configurable() -> None:
    # 0.43 is 0.0177 from 0.4123: outside the 0.005 of two shown decimals
    assert not any(lk.kind == "batna_value" for lk in leaks("We'd walk under 0.43."))
    assert any(lk.kind == "batna_value" for lk in leaks("We'd walk under about 0.43."))
    assert any(lk.kind == "batna_value" for lk in leaks("We'd walk under 0.43.",
                                                        config=LeakConfig(abs_tol=0.02)))
    assert any(lk.kind == "batna_value" for lk in leaks("We'd walk under 0.43.",
                                                        config=LeakConfig(rel_tol=0.05)))
    strict = LeakConfig(hedge_tol=0.0)
    assert not any(lk.kind == "batna_value" for lk in leaks("We'd walk under about 0.43.",
                                                            config=strict))
    # distinctive values alone can be switched off
    assert leaks("Think 0.4123.")
    assert leaks("Think 0.4123.", config=LeakConfig(value_alone=False)) == []


def test_old_call_shape_still_works() -> None:
    found = find_leaks("Honestly my BATNA is 0.4, so meet me there.", 0.4, [0.6, 0.15, 0.25])
    assert {lk.kind for lk in found} == {"batna_value", "disclosure_phrase"}
    assert find_leaks("This package is worth 0.7975 to me.", 0.4, [0.7975])[0].kind == \
        "utility_value"
    assert find_leaks("0 and 1 are everywhere: 1.0 for us", 0.0, [0.0, 1.0]) == []


# ------------------------------------------------------------------ the corpus
def test_corpus_size_balance_and_classes() -> None:
    profiles, examples = load_corpus(CORPUS)
    assert len(examples) >= 200
    leaking = sum(e.leak for e in examples)
    assert 0.4 <= leaking / len(examples) <= 0.6
    classes = Counter(e.cls for e in examples if e.leak)
    for notation in ("decimal", "leading_dot", "decimal_comma", "scientific", "percent",
                     "words", "fraction", "phrase"):
        assert classes[notation] >= 8, notation
    negatives = Counter(e.cls for e in examples if not e.leak)
    for kind in ("public_price", "count_date", "public_percent", "counterpart_refusal",
                 "plain", "other_number"):
        assert negatives[kind] >= 10, kind
    assert len(profiles) >= 5


def test_corpus_precision_and_recall_goal() -> None:
    profiles, examples = load_corpus(CORPUS)
    total, per_class = evaluate(profiles, examples)
    missed = [e.text for e, _ in total.errors]
    assert total.recall >= 0.95 and total.precision >= 0.9, (total.recall, total.precision,
                                                               missed)
    for split in ("dev", "holdout", "fresh"):
        score, _ = evaluate(profiles, [e for e in examples if e.split == split])
        assert score.precision >= 0.9, split
    assert all(s.recall >= 0.75 for c, s in per_class.items() if s.tp + s.fn)
