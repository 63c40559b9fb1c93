"""Calling every reference at once: each evaluates in its own worker process, so the calls overlap."""

from __future__ import annotations

import os
import queue
import threading
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


class _Queue:
    """One daemon thread running submitted calls one after another, in the order they were submitted."""

    def __init__(self, name: str) -> None:
        self._items: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._loop, name=f"chapter-audit-{name}", daemon=True).start()

    def _loop(self) -> None:
        while True:
            future, fn, args = self._items.get()
            if not future.set_running_or_notify_cancel():
                continue  # cancelled before it started
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # re-raised by .result(), as from a thread
                future.set_exception(exc)
            del future, fn, args

    def submit(self, fn: Callable[..., R], *args) -> Future:
        future: Future = Future()
        self._items.put((future, fn, args))
        return future


_QUEUES: dict[str, _Queue] = {}
_QUEUES_LOCK = threading.Lock()


def _forgotten_in_child() -> None:
    """In a forked child (``audit run -j N``): the queues' threads and the shared pool's were not forked, so each
    queue, and the pool, starts anew (a call given to the parent's pool would wait for ever)."""
    global _QUEUES_LOCK, _POOL
    _QUEUES.clear()
    _QUEUES_LOCK = threading.Lock()  # it may have been held by another thread at the fork
    _POOL = None


os.register_at_fork(after_in_child=_forgotten_in_child)


def queued(name: str, fn: Callable[..., R], *args) -> Future:
    """Start ``fn(*args)`` in the queue named ``name`` (one per reference) and return its future at once.

    Calls in one queue run one after another in the order they were queued; different queues run in
    parallel. A reference's worker answers one call at a time anyway, so its queue keeps its calls in the
    order they were asked for, and a reference with a long queue never holds up another's calls (as
    threads of one shared pool waiting on it would). The threads are daemons: the process exits
    without running calls still queued, and ``Future.cancel`` drops one that has not started.
    """
    with _QUEUES_LOCK:
        q = _QUEUES.get(name) or _QUEUES.setdefault(name, _Queue(name))
    return q.submit(fn, *args)
