"""The trajectory log (seed 002, V14): every event of an episode, in order.

Events are small dicts-with-structure so the engine's hot loop stays cheap;
they are written as JSONL and reload into the same objects.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any

from accord.core.safeload import clip, read_text


def _plain(value: Any) -> Any:
    """``asdict``'s conversion of one field value, without deep-copying leaves."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        items = [_plain(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return value


@dataclass(slots=True)
class Event:
    """One logged event.

    ``kind`` is one of ``move`` (a valid move), ``invalid`` (a rejected attempt,
    with ``reason`` and ``feedback``), ``note`` (a protocol note: stagnation,
    mediator suggestion, judge verdict, guard flags) or ``end``.
    """

    seq: int
    round: int
    party: str | None
    kind: str
    move: dict[str, Any] | None = None
    reason: str | None = None
    feedback: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    t: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (empty fields dropped).

        Equal to ``dataclasses.asdict`` minus the empty fields, built directly: containers
        are copied and nested dataclasses become dicts, immutable leaves are shared. This
        runs once per event of every stored episode, where ``asdict``'s deep copy cost a
        third of a short episode.
        """
        out: dict[str, Any] = {"seq": self.seq, "round": self.round}
        if self.party is not None:
            out["party"] = self.party
        out["kind"] = self.kind
        for key, val in (("move", self.move), ("reason", self.reason),
                         ("feedback", self.feedback), ("data", self.data)):
            if val is not None and val != {}:
                out[key] = _plain(val)
        out["t"] = self.t
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """Rebuild an event from :meth:`to_dict` output."""
        d = dict(data)
        return cls(d.pop("seq"), d.pop("round"), d.pop("party", None), d.pop("kind"), **d)


@dataclass(repr=False)
class Trajectory:
    """An ordered event log with JSONL persistence."""

    events: list[Event] = field(default_factory=list)

    def __repr__(self) -> str:
        # short on purpose: asyncio.run formats the finished task (and so the episode
        # result holding this log) on its way out; a full repr cost ~1.4 ms per episode
        return f"Trajectory(<{len(self.events)} events>)"

    def add(
        self,
        round: int,
        party: str | None,
        kind: str,
        *,
        move: dict[str, Any] | None = None,
        reason: str | None = None,
        feedback: str | None = None,
        data: dict[str, Any] | None = None,
        t: float = 0.0,
    ) -> Event:
        """Append an event and return it."""
        ev = Event(len(self.events), round, party, kind, move, reason, feedback, data or {}, t)
        self.events.append(ev)
        return ev

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    def of_kind(self, kind: str) -> list[Event]:
        """The events of one kind, in order."""
        return [e for e in self.events if e.kind == kind]

    def to_jsonl(self) -> str:
        """The log as JSON lines."""
        return "".join(json.dumps(e.to_dict(), default=str) + "\n" for e in self.events)

    def write(self, path: str | Path) -> None:
        """Write the log as JSONL to ``path``."""
        Path(path).write_text(self.to_jsonl(), encoding="utf-8")

    @classmethod
    def from_jsonl(cls, text: str, source: str = "<jsonl>") -> Trajectory:
        """Parse a JSONL log; a bad line raises ``ValueError`` naming source and line."""
        events = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                events.append(Event.from_dict(json.loads(line)))
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
                why = clip(repr(exc))
                raise ValueError(f"{clip(source)}:{n}: not a trajectory event ({why})") from None
        return cls(events)

    @classmethod
    def read(cls, path: str | Path) -> Trajectory:
        """Load a log written by :meth:`write` (a regular UTF-8 file within the size cap)."""
        return cls.from_jsonl(read_text(path), str(path))
