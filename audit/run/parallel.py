"""Calling every reference at once: each evaluates in its own worker process, so the calls overlap."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_POOL: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="chapter-audit-reference")
    return _POOL


def submit_each(fn: Callable[[T], R], items: Sequence[T]) -> list[Future]:
    """Start ``fn(item)`` for every item in a thread of its own; the futures are in ``items``' order.

    The threads only wait on the references' worker processes (pipes release the GIL), so the
    references evaluate in parallel while the caller goes on (e.g. with the chapter's own values).
    A single item is run at once in the calling thread (no thread is worth its cost).
    """
    if len(items) <= 1:
        out: list[Future] = []
        for item in items:
            future: Future = Future()
            try:
                future.set_result(fn(item))
            except BaseException as exc:  # re-raised by .result(), as from a thread
                future.set_exception(exc)
            out.append(future)
        return out
    return [_pool().submit(fn, item) for item in items]


def map_each(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """``[fn(item) for item in items]``, the calls running in parallel; results in ``items``' order, the
    first exception (in that order) raised."""
    return [f.result() for f in submit_each(fn, items)]
