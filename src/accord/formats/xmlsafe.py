"""Safe XML reading for importers: no DTDs, no entities, a size cap.

The standard library's parser expands internal entities ("billion laughs") and reads a
DOCTYPE; the field's files need neither, so any ``<!DOCTYPE`` or ``<!ENTITY`` is refused
before parsing (``defusedxml`` is not a dependency of accord).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from accord.core.loadlimits import MIN_NUMBER, number_problem
from accord.formats.base import MAX_FILE_BYTES, FormatError, read_file_text, tidy

_DECLS = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def parse_xml(path: Path, max_bytes: int = MAX_FILE_BYTES) -> ET.Element:
    """The root element of the XML file ``path``; :class:`FormatError` naming the file
    for a file that is too large, declares a DTD or an entity, or is not well-formed."""
    text = read_file_text(path, max_bytes)
    found = _DECLS.search(text)
    if found:
        raise FormatError(str(path), f"<!{found.group(1).upper()}>",
                          "DTDs and entity declarations are refused (they can expand "
                          "without bound); remove the declaration")
    try:
        return ET.fromstring(text)
    except ET.ParseError as exc:
        raise FormatError(str(path), "<xml>", f"not well-formed XML: {exc}") from None
    except ValueError as exc:  # e.g. an encoding declaration in a str document
        raise FormatError(str(path), "<xml>", f"cannot parse: {exc}") from None


def number(path: Path, element: str, text: str | None) -> float:
    """A finite number from an attribute, or :class:`FormatError` naming the element."""
    if text is None:
        raise FormatError(str(path), element, "missing value")
    try:
        value = float(text.strip())
    except ValueError:
        raise FormatError(str(path), element, f"not a number: {text[:40]!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise FormatError(str(path), element, f"not a finite number: {text[:40]!r}")
    value = tidy(value, MIN_NUMBER)  # 2.8e-18 (a NegMAS-written profile) is 0 to accord
    problem = number_problem(value)  # what an accord scenario file may hold
    if problem is not None:
        raise FormatError(str(path), element, problem)
    return value


def integer(path: Path, element: str, text: str | None) -> int:
    """An integer from an attribute, or :class:`FormatError` naming the element."""
    value = number(path, element, text)
    if value != int(value):
        raise FormatError(str(path), element, f"not an integer: {text!r}")
    return int(value)
