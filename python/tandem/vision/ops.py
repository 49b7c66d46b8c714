"""torchvision.ops for tandem: box_iou, box_area, nms, batched_nms on (N, 4) boxes in
(x1, y1, x2, y2) corner form."""
from __future__ import annotations

from typing import Any, List, Tuple

from .. import _C
from .._generated import torch_api as _t

Tensor = _C.Tensor

__all__ = ["box_area", "box_iou", "nms", "batched_nms", "roi_pool"]


def box_area(boxes: Tensor) -> Tensor:
    """Areas of boxes.

    Args:
        boxes (Tensor): (N, 4) boxes (x1, y1, x2, y2).

    Returns:
        Tensor: (N,) areas.
    """
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    """Pairwise intersection over union.

    Args:
        boxes1 (Tensor): (N, 4) boxes.
        boxes2 (Tensor): (M, 4) boxes.

    Returns:
        Tensor: (N, M) IoU values.
    """
    if boxes1.ndim != 2 or boxes1.shape[-1] != 4 or boxes2.ndim != 2 or boxes2.shape[-1] != 4:
        raise ValueError(f"box_iou: expected (N, 4) and (M, 4) boxes, got "
                         f"{tuple(boxes1.shape)} and {tuple(boxes2.shape)}")
    a1, a2 = box_area(boxes1), box_area(boxes2)
    lt = _t.maximum(boxes1[:, None, :2], boxes2[None, :, :2])
    rb = _t.minimum(boxes1[:, None, 2:], boxes2[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (a1[:, None] + a2[None, :] - inter)


def nms(boxes: Tensor, scores: Tensor, iou_threshold: float) -> Tensor:
    """Non-maximum suppression: keeps the highest-scoring boxes, dropping boxes whose IoU
    with a kept box exceeds ``iou_threshold``.

    Args:
        boxes (Tensor): (N, 4) boxes.
        scores (Tensor): (N,) scores.
        iou_threshold (float): the IoU above which a box is suppressed.

    Returns:
        Tensor: int64 indices of the kept boxes, by decreasing score.
    """
    import numpy as np
    if boxes.shape[0] == 0:
        return _t.zeros(0, dtype=_C.dtype.int64)
    order = np.argsort(-scores.detach().numpy(), kind="stable")
    iou = box_iou(boxes, boxes).detach().numpy()
    keep, removed = [], np.zeros(len(order), dtype=bool)
    for i in order:
        if removed[i]:
            continue
        keep.append(int(i))
        removed |= iou[i] > iou_threshold
    return _t.tensor(keep, dtype=_C.dtype.int64)


def batched_nms(boxes: Tensor, scores: Tensor, idxs: Tensor, iou_threshold: float) -> Tensor:
    """nms within each category of ``idxs`` independently.

    Args:
        boxes (Tensor): (N, 4) boxes.
        scores (Tensor): (N,) scores.
        idxs (Tensor): (N,) category of each box.
        iou_threshold (float): the IoU above which a box is suppressed.

    Returns:
        Tensor: int64 indices of the kept boxes, by decreasing score.
    """
    if boxes.shape[0] == 0:
        return _t.zeros(0, dtype=_C.dtype.int64)
    shift = (float(boxes.detach().numpy().max()) + 1) * _C.to_dtype(idxs, boxes.dtype)
    return nms(boxes + shift[:, None], scores, iou_threshold)


def _rois(boxes: Any) -> "List[Tuple[Any, ...]]":
    """(batch index, x1, y1, x2, y2) rows from an (K, 5) tensor or a list of (Ki, 4) tensors."""
    if isinstance(boxes, (list, tuple)):
        rows = []
        for b, t in enumerate(boxes):
            rows += [(b, *map(float, r)) for r in t.detach().numpy().tolist()]
        return rows
    if boxes.ndim != 2 or boxes.shape[1] != 5:
        raise ValueError(f"roi_pool: boxes must be (K, 5) [batch, x1, y1, x2, y2] or a list "
                         f"of (Ki, 4) tensors, got shape {tuple(boxes.shape)}")
    return [(int(r[0]), *map(float, r[1:])) for r in boxes.detach().numpy().tolist()]


def roi_pool(input: Tensor, boxes: Any, output_size: Any,  # noqa: A002
             spatial_scale: float = 1.0) -> Tensor:
    """Region-of-interest max pooling (Fast R-CNN), as torchvision.ops.roi_pool: each box,
    scaled by ``spatial_scale`` and rounded to feature-map cells, is split into an
    output_size grid of bins and each bin's maximum is taken (empty bins give 0).
    Differentiable in ``input``.

    Args:
        input (Tensor): (N, C, H, W) features.
        boxes (Tensor or list[Tensor]): (K, 5) rows (batch index, x1, y1, x2, y2), or one
            (Ki, 4) tensor per image.
        output_size (int or tuple[int, int]): (h, w) of each pooled region.
        spatial_scale (float): maps box coordinates to feature cells. Default: ``1.0``.

    Returns:
        Tensor: (K, C, h, w) pooled features.
    """
    import math
    oh, ow = (output_size, output_size) if isinstance(output_size, int) else map(int, output_size)
    H, W = input.shape[-2], input.shape[-1]
    outs = []
    for b, x1, y1, x2, y2 in _rois(boxes):
        # torchvision rounds the scaled corners and makes every roi at least 1 x 1
        sx, sy = int(round(x1 * spatial_scale)), int(round(y1 * spatial_scale))
        ex, ey = int(round(x2 * spatial_scale)), int(round(y2 * spatial_scale))
        rw, rh = max(ex - sx + 1, 1), max(ey - sy + 1, 1)
        bh, bw = rh / oh, rw / ow
        rows = []
        for i in range(oh):
            h0 = min(max(int(math.floor(i * bh)) + sy, 0), H)
            h1 = min(max(int(math.ceil((i + 1) * bh)) + sy, 0), H)
            cols = []
            for j in range(ow):
                w0 = min(max(int(math.floor(j * bw)) + sx, 0), W)
                w1 = min(max(int(math.ceil((j + 1) * bw)) + sx, 0), W)
                if h1 <= h0 or w1 <= w0:
                    cols.append(_t.zeros(input.shape[1], dtype=input.dtype))
                else:
                    cols.append(input[b, :, h0:h1, w0:w1].amax(dim=(-2, -1)))
            rows.append(_t.stack(cols, -1))
        outs.append(_t.stack(rows, -2))
    if not outs:
        return _t.zeros(0, input.shape[1], oh, ow, dtype=input.dtype)
    return _t.stack(outs, 0)
