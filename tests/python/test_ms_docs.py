"""docs/ms_vs_mint.md lists every tandem.ops row that shadows a PyTorch-face name."""
import os
import re

from tandem._api.table import ROWS

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "ms_vs_mint.md")


def test_every_shadowing_ms_row_is_in_the_table():
    torch_names = {r.name for r in ROWS if r.ns in ("torch", "F")}
    shadowing = sorted(r.name for r in ROWS if r.ns == "ms" and r.name in torch_names)
    with open(DOC, encoding="utf-8") as f:
        table = [ln for ln in f if ln.startswith("| `")]
    listed = {n for ln in table for n in re.findall(r"`(\w+)`", ln.split("|")[1])}
    missing = [n for n in shadowing if n not in listed]
    assert not missing, f"add these names to docs/ms_vs_mint.md: {missing}"
    assert len(shadowing) >= 25
