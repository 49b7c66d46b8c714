"""Collects the public functions of each op family so mint / ops / Tensor methods share them.

A family module decorates its functions with ``@public`` (exported by ``tandem.mint`` and
``tandem.ops``) and ``@method`` (also attached to ``Tensor`` as a method).
"""
from __future__ import annotations

from typing import Callable, Dict

PUBLIC: Dict[str, Callable] = {}
METHODS: Dict[str, Callable] = {}


def public(fn: Callable = None, *, name: str | None = None, method: bool = False,
           method_name: str | None = None):
    """Registers fn as a public op (and optionally as a Tensor method)."""

    def wrap(f):
        PUBLIC[name or f.__name__] = f
        if method:
            METHODS[method_name or name or f.__name__] = f
        return f

    return wrap(fn) if fn is not None else wrap


def method(fn: Callable = None, *, name: str | None = None):
    """Registers fn as a Tensor method only."""

    def wrap(f):
        METHODS[name or f.__name__] = f
        return f

    return wrap(fn) if fn is not None else wrap
