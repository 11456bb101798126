"""Bit masks over the atomic-task universe (seed 000, Appendix A.1).

A composite task is a subset of the n atomic tasks, encoded as an n-bit mask
(bit i set = atomic task i included). Masks print as ``bit(n-1)...bit0`` strings,
so with n = 6 the main task (i) is ``000111``. The complement of a composite is
its XOR with the all-ones mask.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def full_mask(n: int) -> int:
    """The all-ones mask ``M = 1^n``."""
    return (1 << n) - 1


def complement(mask: int, n: int) -> int:
    """``z_comp = z XOR M``: the atomic tasks a partner could take."""
    return mask ^ full_mask(n)


def bits_of(mask: int) -> list[int]:
    """Indices of the atomic tasks included in ``mask``, ascending."""
    out: list[int] = []
    i = 0
    while mask >> i:
        if mask >> i & 1:
            out.append(i)
        i += 1
    return out


def popcount(mask: int) -> int:
    """Number of atomic tasks in ``mask``."""
    return bin(mask).count("1")


def format_mask(mask: int, n: int) -> str:
    """``mask`` as an n-character binary string, most significant bit first."""
    return format(mask, f"0{n}b")


def parse_mask(text: str, n: int) -> int:
    """Parse an n-character binary string (``"000111"``); raises ``ValueError`` otherwise."""
    if len(text) != n or any(ch not in "01" for ch in text):
        raise ValueError(f"mask {text!r} must be {n} characters of 0/1 (bit{n - 1}...bit0)")
    return int(text, 2)


def all_masks(n: int) -> range:
    """Every mask of the universe, 0 to 2^n - 1 (all 2^n composite tasks)."""
    return range(1 << n)


def union(masks: Iterable[int]) -> int:
    """Bitwise OR of ``masks`` (Rule 4: merged composite)."""
    out = 0
    for m in masks:
        out |= m
    return out


def partitions(n: int) -> Iterator[tuple[int, int]]:
    """Every split of the universe into two non-empty composites ``(first, second)``."""
    full = full_mask(n)
    for m in range(1, full):
        yield m, full ^ m


__all__ = [
    "all_masks",
    "bits_of",
    "complement",
    "format_mask",
    "full_mask",
    "parse_mask",
    "partitions",
    "popcount",
    "union",
]
