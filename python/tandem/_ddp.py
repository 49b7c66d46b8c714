"""Gradient bucketing for data-parallel training (``mint.nn.parallel.DistributedDataParallel``).

The parameters are packed, in reverse registration order (roughly the order backward
produces their gradients), into buckets of about ``bucket_cap_mb`` of one dtype each. When a
backward has written a parameter's ``.grad``, the gradient is copied into its bucket; when a
bucket is complete its mean over the ranks starts at once as an asynchronous all_reduce on
the group's communication thread, so it overlaps the rest of the backward. When the backward
ends, the reduced buckets are copied back into ``.grad``. Inside ``no_sync()`` nothing is
reduced and gradients accumulate locally; the next synchronised backward reduces the
accumulated ``.grad`` (PyTorch's semantics)."""
from __future__ import annotations

import time
import weakref
from typing import Any, Optional, Sequence

from . import _C, _distributed
from ._C import Tensor


class _Bucket:
    """Parameters of one dtype whose gradients are reduced together."""

    def __init__(self, params: list[Tensor]) -> None:
        from . import mint
        self.params = params
        self.offsets: list[int] = []
        n = 0
        for p in params:
            self.offsets.append(n)
            n += int(p.numel())
        self.buffer = mint.zeros(n, dtype=params[0].dtype)
        self.pending = len(params)
        self.work: Optional[_C.Work] = None
        self.traced: Optional[Tensor] = None  # the reduced gradients, inside a trace


class Reducer:
    """Averages the gradients of ``params`` over the ranks of ``pg`` in buckets.

    Args:
        params: the parameters (those that do not require a gradient are skipped).
        pg: the process group (None: the default group).
        bucket_cap_mb: the size of a bucket in MiB (PyTorch's default: 25).
        gradient_as_bucket_view: after the reduction each ``.grad`` is a view into its
            bucket instead of a copy (saves one copy of every gradient per step; a later
            backward that accumulates into that ``.grad`` writes into the bucket directly
            and the copy in is skipped as well). A ``.grad`` kept from an earlier step then
            changes with the bucket, as in PyTorch.
    """

    def __init__(self, params: Sequence[Tensor], pg: Any = None,
                 bucket_cap_mb: float = 25.0, gradient_as_bucket_view: bool = False) -> None:
        if not bucket_cap_mb > 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got "
                             f"{bucket_cap_mb!r}")
        self.pg = pg
        self.group = _distributed.resolve("DistributedDataParallel", pg)
        seen: set[int] = set()
        ordered = []
        for p in params:
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                ordered.append(p)
        ordered.reverse()
        cap = int(bucket_cap_mb * 1024 * 1024)
        self.buckets: list[_Bucket] = []
        open_buckets: dict[Any, tuple[list[Tensor], int]] = {}
        for p in ordered:
            members, size = open_buckets.get(p.dtype, ([], 0))
            members.append(p)
            size += int(p.numel()) * p.element_size()
            if size >= cap:
                self.buckets.append(_Bucket(members))
                members, size = [], 0
            open_buckets[p.dtype] = (members, size)
        for members, _ in open_buckets.values():
            if members:
                self.buckets.append(_Bucket(members))
        self.where: dict[int, tuple[_Bucket, int]] = {}
        for b in self.buckets:
            for i, p in enumerate(b.params):
                self.where[id(p)] = (b, i)
        self.as_view = bool(gradient_as_bucket_view)
        self.require_sync = True
        self.in_backward = False
        self.ready: set[int] = set()
        # Seconds the last backward waited for reductions after its gradients were ready
        # (what the overlap did not hide) and the number of reductions started.
        self.last_wait_s = 0.0
        self.last_reductions = 0
        if self.group is not None:
            for p in ordered:
                p.register_post_accumulate_grad_hook(self._make_hook(p))

    def _make_hook(self, p: Tensor) -> Any:
        # The hook lives on the parameter, so it must not hold the parameter or the reducer
        # strongly: that cycle runs through C++, where Python's collector cannot break it.
        key = id(p)
        reducer = weakref.ref(self)

        def hook(param: Tensor) -> None:
            r = reducer()
            if r is not None:
                r._grad_ready(key, param)

        return hook

    def _grad_ready(self, key: int, p: Tensor) -> None:
        if not self.require_sync:
            return
        if not self.in_backward:
            self.in_backward = True
            self.ready.clear()
            self.last_reductions = 0
            _C.queue_backward_callback(self._finish)
        if key in self.ready:
            raise RuntimeError("DistributedDataParallel: a parameter's gradient was ready twice "
                               "in one backward; reentrant or repeated backward passes through "
                               "the same parameters before the reduction are not supported")
        self.ready.add(key)
        bucket, i = self.where[key]
        if _C.is_tracing():
            self._grad_ready_traced(bucket)
            return
        n = int(p.numel())
        off = bucket.offsets[i]
        grad = p.grad
        if not (self.as_view and grad.data_ptr() == bucket.buffer.data_ptr()
                + off * grad.element_size() and grad.is_contiguous()):
            with _no_grad():
                bucket.buffer[off:off + n].copy_(grad.reshape(-1))
        bucket.pending -= 1
        if bucket.pending == 0:
            bucket.work = self.group.all_reduce(bucket.buffer, _C.ReduceOp.AVG, True)
            self.last_reductions += 1

    def _grad_ready_traced(self, bucket: _Bucket) -> None:
        # Inside a trace (jit, GRAPH_MODE) the bucket's mean is a pair of graph nodes over its
        # own gradients, flattened and joined: all_reduce_start here, where the bucket's last
        # gradient appears, and all_reduce_wait at the end of backward, so the compiled step
        # goes on with the backward pass while the bucket is reduced, and each bucket's
        # optimizer update waits only for its own. (Eagerly the gradients go into the bucket's
        # buffer and an asynchronous all_reduce.)
        bucket.pending -= 1
        if bucket.pending == 0:
            from . import mint
            with mint.no_grad():
                flat = mint.cat([q.grad.reshape(-1) for q in bucket.params])
                bucket.traced = _C.all_reduce_start(flat, _C.ReduceOp.AVG, self.group)
            self.last_reductions += 1

    def _finish(self) -> None:
        self.in_backward = False
        missing = [b for b in self.buckets if b.pending]
        if missing:
            names = self.describe_missing()
            for b in self.buckets:
                b.pending = len(b.params)
                b.traced = None
            self._wait_all()
            raise RuntimeError(
                "DistributedDataParallel: this backward produced no gradient for "
                f"{names}; every parameter that requires a gradient must receive one on every "
                "rank in each backward (find_unused_parameters is not supported): freeze the "
                "unused parameters (requires_grad_(False)) or use them in the loss")
        start = time.perf_counter()
        self._wait_all()
        self.last_wait_s = time.perf_counter() - start
        with _no_grad():
            for b in self.buckets:
                if b.traced is not None:
                    reduced = _C.all_reduce_wait(b.traced)
                    for p, off in zip(b.params, b.offsets):
                        n = int(p.numel())
                        p.grad.copy_(reduced[off:off + n].view(tuple(p.shape)))
                    b.traced = None
                    b.pending = len(b.params)
                    continue
                for p, off in zip(b.params, b.offsets):
                    n = int(p.numel())
                    view = b.buffer[off:off + n].view(tuple(p.shape))
                    if self.as_view:
                        p.grad = view
                    else:
                        p.grad.copy_(view)
                b.pending = len(b.params)

    def _wait_all(self) -> None:
        for b in self.buckets:
            if b.work is not None:
                w, b.work = b.work, None
                w.wait()

    def describe_missing(self) -> str:
        """The parameters of incomplete buckets that got no gradient (for the error)."""
        shapes = [tuple(p.shape) for b in self.buckets for p in b.params
                  if id(p) not in self.ready]
        more = f" and {len(shapes) - 5} more" if len(shapes) > 5 else ""
        return f"{len(shapes)} parameter(s) of shapes {shapes[:5]}{more}"


def _no_grad() -> Any:
    from . import mint
    return mint.no_grad()
