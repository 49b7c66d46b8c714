"""``mint.backends.cpu``: which vector instructions the CPU kernels use."""
from __future__ import annotations

from ... import _C

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The widest instruction set tandem's kernels run on this CPU.

    The library is compiled for x86-64-v3 (AVX2, FMA); its hot kernels also carry AVX-512
    forms chosen at run time where the CPU has AVX-512. Setting the environment variable
    ``TANDEM_ISA=avx2`` before the first import keeps them (and oneDNN) on AVX2.

    Returns:
        str: ``"AVX512"`` or ``"AVX2"``, as ``torch.backends.cpu.get_cpu_capability()``
        names them.
    """
    return _C.cpu_capability()
