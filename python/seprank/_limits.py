"""The process-wide memory limit (the CLI's --max-memory): what the functions without a
``max_memory`` argument of their own (``table``, ``generic_rank``, ``dimension``,
``variety``, ``BlockLaw.predict``, …) compare their size estimates against."""

from __future__ import annotations

from . import _core
from ._boundary import memory_bytes


def max_memory() -> float:
    """The process-wide memory limit in bytes: half of the smaller of the physical memory
    and the process's address-space limit, unless :func:`set_max_memory` set another."""
    return _core.max_memory()


def set_max_memory(max_memory: float) -> None:
    """Sets the process-wide memory limit to ``max_memory`` bytes (1 KiB .. 1 PiB, and at
    most 3/4 of an address-space limit when the process has one), as the CLI's
    ``--max-memory`` does in GiB. A refusal against it names ``seprank.set_max_memory``.
    It governs every later call, in every thread; the ``max_memory`` arguments of
    ``expand``, ``rank`` and ``spectrum`` are their own limits and stay as given."""
    _core.set_max_memory(memory_bytes(max_memory))
