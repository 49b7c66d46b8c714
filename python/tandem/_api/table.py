"""The op table: every public op of tandem, declared once (see ``rows.Op``)."""
from __future__ import annotations

from typing import Dict, List

from . import (table_creation, table_elementwise, table_index, table_linalg, table_ms,
               table_nn, table_reduce, table_shape, table_sort)
from .rows import Op

FAMILIES = {
    "elementwise": table_elementwise.ROWS,
    "reduce": table_reduce.ROWS,
    "shape": table_shape.ROWS,
    "creation": table_creation.ROWS,
    "index": table_index.ROWS,
    "linalg": table_linalg.ROWS,
    "sort": table_sort.ROWS,
    "nn": table_nn.ROWS,
    "ms": table_ms.ROWS,
}

ROWS: List[Op] = [row for rows in FAMILIES.values() for row in rows]


def by_key() -> Dict[str, Op]:
    """Rows by namespace-qualified name; a duplicate is an error."""
    out: Dict[str, Op] = {}
    for row in ROWS:
        if row.key in out:
            raise ValueError(f"op table: {row.key} is declared twice")
        out[row.key] = row
    return out
