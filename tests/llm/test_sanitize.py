"""Lone surrogates in model text become U+FFFD (issue 24)."""

from accord.llm.sanitize import clean_text


def test_clean_text() -> None:
    assert clean_text("ok") == "ok"
    assert clean_text("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    assert clean_text("\ud83d\ude00") == "\U0001f600"  # a correct pair is the character
    clean_text("x\udc80" * 1000).encode("utf-8")
