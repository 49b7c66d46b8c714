"""Writing files so that a failure (an exception, a full disk, a kill) never leaves a
half-written file under the final name: the bytes go to a temporary file next to it, which
is flushed, synced and renamed over the target in one step."""
from __future__ import annotations

import os
from typing import Union


def write_bytes_atomic(path: Union[str, os.PathLike], data: bytes) -> None:
    """Writes ``data`` to ``path`` through a temporary file and a rename.

    Args:
        path (str or os.PathLike): the file to write.
        data (bytes): its whole content.
    """
    path = os.fspath(path)
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
