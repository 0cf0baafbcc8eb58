"""A snapshot of an operator's state: plain data by name, numpy arrays of numbers or text and
scalars (ints, floats, text, flags), never pickled objects, so that storing it needs no pickle and
reading it runs no code it holds (:meth:`~shedding.online.engine.JoinOperator.snapshot`).
:class:`SnapshotReader` reads one back by name and refuses anything else.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from shedding.errors import ShedError

#: a snapshot: plain data by name (numpy arrays of numbers or text, ints, floats, text, flags)
Snapshot = dict[str, np.ndarray | int | float | str | bool]
#: the kinds of numpy data a snapshot may hold: flags, integers, floats, text; never objects
_PLAIN_KINDS = frozenset("biufU")
#: a 64-bit word's range: a 128-bit integer is two words
_WORD = 2**64


class SnapshotReader(Mapping):
    """A snapshot's entries read by name, as fresh numpy arrays (0-d for the scalars). Every entry
    must be plain data (:data:`_PLAIN_KINDS`; an object array, which only a pickle could fill, is
    refused), a missing entry is a ShedError, and :meth:`check_all_read` refuses entries nobody
    read (a snapshot of another state layout). :meth:`within` reads the entries under a prefix."""

    def __init__(self, snap: Mapping[str, object], what: str = "the snapshot", *, _read: set[str] | None = None,
                 _prefix: str = "") -> None:
        if _read is None:
            checked = {}
            for name, value in snap.items():
                array = np.asarray(value)
                if array.dtype.kind not in _PLAIN_KINDS:
                    raise ShedError(f"{what} holds {name!r} as {array.dtype} data; a snapshot holds numbers, text "
                                    "and flags only (no Python objects)")
                checked[name] = array
            snap, _read = checked, set()
        self._values, self._read, self._prefix, self._what = snap, _read, _prefix, what

    def __getitem__(self, name: str) -> np.ndarray:
        full = self._prefix + name
        if full not in self._values:
            raise ShedError(f"{self._what} has no entry {full!r}; it was not written by this version of shedding")
        self._read.add(full)
        return np.array(self._values[full])

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._prefix + name in self._values

    def __iter__(self) -> Iterator[str]:
        return (n[len(self._prefix):] for n in self._values if n.startswith(self._prefix))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def within(self, prefix: str) -> SnapshotReader:
        """The entries whose names start with ``prefix``, named without it."""
        return SnapshotReader(self._values, self._what, _read=self._read, _prefix=self._prefix + prefix)

    def check_all_read(self) -> None:
        """Refuse the snapshot if it holds entries (under this reader's prefix) nobody read."""
        unread = sorted(n for n in self._values if n.startswith(self._prefix) and n not in self._read)
        if unread:
            raise ShedError(f"{self._what} holds entries this version does not know ({', '.join(unread[:5])}); it "
                            "was written by another version of shedding")


def words(value: int) -> list[int]:
    """A 128-bit integer (a PCG64 generator's state or increment) as two 64-bit words, high first."""
    return [value // _WORD, value % _WORD]


def from_words(pair: np.ndarray) -> int:
    """The integer :func:`words` split."""
    return int(pair[0]) * _WORD + int(pair[1])
