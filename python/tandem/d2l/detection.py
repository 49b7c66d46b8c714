"""Anchor boxes and SSD-style targets/detections for chapter 13 (object detection). Boxes
are (x1, y1, x2, y2) corners or (cx, cy, w, h) centres; anchors are normalized to [0, 1].
Labels and detections are not differentiable, so they are computed with numpy."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import mint
from ..vision import ops as _vops


def _np(x: Any) -> np.ndarray:
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def box_corner_to_center(boxes: Any) -> Any:
    """(x1, y1, x2, y2) -> (cx, cy, w, h).

    Args:
        boxes (Tensor): (n, 4) corner boxes.

    Returns:
        Tensor: (n, 4) centre boxes.
    """
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    return mint.stack(((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1), dim=-1)


def box_center_to_corner(boxes: Any) -> Any:
    """(cx, cy, w, h) -> (x1, y1, x2, y2).

    Args:
        boxes (Tensor): (n, 4) centre boxes.

    Returns:
        Tensor: (n, 4) corner boxes.
    """
    cx, cy, w, h = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    return mint.stack((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), dim=-1)


def multibox_prior(data: Any, sizes: Sequence[float], ratios: Sequence[float]) -> Any:
    """Anchors centred on every pixel of a feature map: for each pixel, the sizes with the
    first ratio, then the first size with the other ratios (len(sizes) + len(ratios) - 1).

    Args:
        data (Tensor): (N, C, H, W) feature map (only H and W are used).
        sizes (list[float]): anchor scales (fractions of the image).
        ratios (list[float]): width / height ratios.

    Returns:
        Tensor: (1, H * W * anchors_per_pixel, 4) normalized corner boxes.
    """
    h, w = int(data.shape[-2]), int(data.shape[-1])
    sizes, ratios = [float(s) for s in sizes], [float(r) for r in ratios]
    pairs = [(s, ratios[0]) for s in sizes] + [(sizes[0], r) for r in ratios[1:]]
    # widths are scaled by h / w so that a ratio-1 anchor is square in pixels
    aw = np.array([s * np.sqrt(r) for s, r in pairs]) * h / w
    ah = np.array([s / np.sqrt(r) for s, r in pairs])
    cy = (np.arange(h) + 0.5) / h
    cx = (np.arange(w) + 0.5) / w
    yy, xx = np.meshgrid(cy, cx, indexing="ij")
    centres = np.stack([xx.ravel(), yy.ravel(), xx.ravel(), yy.ravel()], 1)  # (h*w, 4)
    half = np.stack([-aw, -ah, aw, ah], 1) / 2  # (a, 4)
    out = (centres[:, None, :] + half[None, :, :]).reshape(1, -1, 4)
    return mint.tensor(out.astype(np.float32))


def box_iou(boxes1: Any, boxes2: Any) -> Any:
    """Pairwise IoU of corner boxes.

    Args:
        boxes1 (Tensor): (n, 4).
        boxes2 (Tensor): (m, 4).

    Returns:
        Tensor: (n, m).
    """
    return _vops.box_iou(boxes1, boxes2)


def assign_anchor_to_bbox(ground_truth: Any, anchors: Any, device: Any = None,
                          iou_threshold: float = 0.5) -> Any:
    """The ground-truth box assigned to each anchor (-1: background): first every box gets
    its best anchor (greedily, by the largest remaining IoU), then every other anchor takes
    its best box when their IoU reaches ``iou_threshold``.

    Args:
        ground_truth (Tensor): (m, 4) boxes.
        anchors (Tensor): (n, 4) anchors.
        device: unused (CPU).
        iou_threshold (float): the IoU an anchor needs. Default: ``0.5``.

    Returns:
        Tensor: (n,) int64 box indices.
    """
    iou = _np(box_iou(anchors, ground_truth)).astype(np.float64)
    n, m = iou.shape
    assigned = np.full(n, -1, dtype=np.int64)
    best = iou.argmax(1)
    ok = iou[np.arange(n), best] >= iou_threshold
    assigned[ok] = best[ok]
    work = iou.copy()
    for _ in range(m):
        k = int(work.argmax())
        i, j = divmod(k, m)
        assigned[i] = j
        work[:, j] = -1
        work[i, :] = -1
    return mint.tensor(assigned)


def offset_boxes(anchors: Any, assigned_bb: Any, eps: float = 1e-6) -> Any:
    """Regression targets of boxes relative to anchors (SSD's scaled centre/size offsets).

    Args:
        anchors (Tensor): (n, 4) corner anchors.
        assigned_bb (Tensor): (n, 4) corner boxes.
        eps (float): keeps the log finite. Default: ``1e-6``.

    Returns:
        Tensor: (n, 4) offsets.
    """
    a, b = box_corner_to_center(anchors), box_corner_to_center(assigned_bb)
    xy = 10 * (b[:, :2] - a[:, :2]) / a[:, 2:]
    wh = 5 * mint.log(eps + b[:, 2:] / a[:, 2:])
    return mint.cat([xy, wh], dim=1)


def multibox_target(anchors: Any, labels: Any) -> Any:
    """Per-anchor training targets for a batch.

    Args:
        anchors (Tensor): (1, n, 4) anchors.
        labels (Tensor): (batch, objects, 5) rows (class, x1, y1, x2, y2).

    Returns:
        tuple[Tensor, Tensor, Tensor]: offsets (batch, 4n), masks (batch, 4n) and class
        labels (batch, n), 0 being background.
    """
    anc = anchors[0] if anchors.ndim == 3 else anchors
    offsets, masks, classes = [], [], []
    for lab in labels:
        assigned = _np(assign_anchor_to_bbox(lab[:, 1:], anc))
        pos = assigned >= 0
        lab_np = _np(lab)
        cls = np.zeros(len(assigned), dtype=np.int64)
        cls[pos] = lab_np[assigned[pos], 0].astype(np.int64) + 1
        bb = np.zeros((len(assigned), 4), dtype=np.float32)
        bb[pos] = lab_np[assigned[pos], 1:]
        mask = np.repeat(pos.astype(np.float32)[:, None], 4, 1)
        off = _np(offset_boxes(anc, mint.tensor(bb))) * mask
        offsets.append(off.reshape(-1))
        masks.append(mask.reshape(-1))
        classes.append(cls)
    return (mint.tensor(np.stack(offsets)), mint.tensor(np.stack(masks)),
            mint.tensor(np.stack(classes)))


def offset_inverse(anchors: Any, offset_preds: Any) -> Any:
    """Boxes from anchors and predicted offsets (the inverse of offset_boxes).

    Args:
        anchors (Tensor): (n, 4) corner anchors.
        offset_preds (Tensor): (n, 4) offsets.

    Returns:
        Tensor: (n, 4) corner boxes.
    """
    a = box_corner_to_center(anchors)
    xy = offset_preds[:, :2] * a[:, 2:] / 10 + a[:, :2]
    wh = mint.exp(offset_preds[:, 2:] / 5) * a[:, 2:]
    return box_center_to_corner(mint.cat([xy, wh], dim=1))


def nms(boxes: Any, scores: Any, iou_threshold: float) -> Any:
    """Non-maximum suppression.

    Args:
        boxes (Tensor): (n, 4) boxes.
        scores (Tensor): (n,) scores.
        iou_threshold (float): IoU above which a lower-scoring box is dropped.

    Returns:
        Tensor: int64 indices kept, by decreasing score.
    """
    return _vops.nms(boxes, scores, iou_threshold)


def multibox_detection(cls_probs: Any, offset_preds: Any, anchors: Any,
                       nms_threshold: float = 0.5, pos_threshold: float = 0.009999999) -> Any:
    """Detections from class probabilities and offsets: rows (class or -1, confidence,
    x1, y1, x2, y2), the boxes kept by NMS first.

    Args:
        cls_probs (Tensor): (batch, classes + 1, n) probabilities (row 0: background).
        offset_preds (Tensor): (batch, 4n) offsets.
        anchors (Tensor): (1, n, 4) anchors.
        nms_threshold (float): NMS IoU threshold. Default: ``0.5``.
        pos_threshold (float): confidences below it become background. Default: ``0.01``.

    Returns:
        Tensor: (batch, n, 6) detections.
    """
    anc = anchors[0] if anchors.ndim == 3 else anchors
    out = []
    for b in range(cls_probs.shape[0]):
        probs = _np(cls_probs[b])
        conf = probs[1:].max(0)
        cls = probs[1:].argmax(0).astype(np.float32)
        boxes = offset_inverse(anc, offset_preds[b].reshape(-1, 4))
        keep = _np(nms(boxes, mint.tensor(conf), nms_threshold)).astype(np.int64)
        rest = np.setdiff1d(np.arange(len(conf)), keep)
        cls[rest] = -1
        order = np.concatenate([keep, rest])
        cls, conf, bb = cls[order], conf[order].copy(), _np(boxes)[order]
        low = conf < pos_threshold
        cls[low] = -1
        conf[low] = 1 - conf[low]
        out.append(np.concatenate([cls[:, None], conf[:, None], bb], 1))
    return mint.tensor(np.stack(out).astype(np.float32))
