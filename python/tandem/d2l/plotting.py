"""Plots for the book's helpers, on matplotlib as the user has configured it: the backend is
never switched. In a Jupyter kernel the Animator redraws one inline figure in place through
IPython's display handles; elsewhere it draws on the current backend (a window with an
interactive one, nothing visible with Agg until the user saves or shows the figure)."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np


def _plt():
    from matplotlib import pyplot
    return pyplot


class _LazyPyplot:
    """``d2l.plt``: matplotlib.pyplot, imported on first use (importing tandem.d2l stays cheap)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_plt(), name)


plt = _LazyPyplot()


def in_notebook() -> bool:
    """Whether this runs in a Jupyter (IPython kernel) session.

    Returns:
        bool: True inside a kernel.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    ip = get_ipython()
    return ip is not None and "IPKernelApp" in getattr(ip, "config", {})


def use_svg_display() -> None:
    """Asks Jupyter for SVG inline figures (does nothing outside a notebook).

    Returns:
        None
    """
    if not in_notebook():
        return
    try:
        from matplotlib_inline import backend_inline
        backend_inline.set_matplotlib_formats("svg")
    except ImportError:
        pass


def set_figsize(figsize: Sequence[float] = (3.5, 2.5)) -> None:
    """Sets matplotlib's default figure size.

    Args:
        figsize (tuple): (width, height) in inches. Default: ``(3.5, 2.5)``.

    Returns:
        None
    """
    use_svg_display()
    _plt().rcParams["figure.figsize"] = tuple(figsize)


def set_axes(axes: Any, xlabel: Optional[str], ylabel: Optional[str], xlim: Any, ylim: Any,
             xscale: str, yscale: str, legend: Optional[Sequence[str]]) -> None:
    """Labels, limits, scales, legend and grid of one matplotlib Axes.

    Args:
        axes (Axes): the axes.
        xlabel (str, optional): x label.
        ylabel (str, optional): y label.
        xlim (tuple, optional): x range.
        ylim (tuple, optional): y range.
        xscale (str): 'linear' or 'log'.
        yscale (str): 'linear' or 'log'.
        legend (list[str], optional): curve names.

    Returns:
        None
    """
    if xlabel:
        axes.set_xlabel(xlabel)
    if ylabel:
        axes.set_ylabel(ylabel)
    axes.set_xscale(xscale)
    axes.set_yscale(yscale)
    if xlim is not None:
        axes.set_xlim(xlim)
    if ylim is not None:
        axes.set_ylim(ylim)
    if legend:
        axes.legend(legend)
    axes.grid()


def _np(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):
        x = x.detach()
    if hasattr(x, "asnumpy"):
        return np.asarray(x.asnumpy())
    return np.asarray(x)


def _is_1d(x: Any) -> bool:
    return (hasattr(x, "ndim") and x.ndim == 1) or (isinstance(x, list) and len(x) > 0
                                                  and not hasattr(x[0], "__len__"))


def plot(X: Any, Y: Any = None, xlabel: Optional[str] = None, ylabel: Optional[str] = None,
         legend: Optional[Sequence[str]] = None, xlim: Any = None, ylim: Any = None,
         xscale: str = "linear", yscale: str = "linear",
         fmts: Sequence[str] = ("-", "m--", "g-.", "r:"), figsize: Sequence[float] = (3.5, 2.5),
         axes: Any = None) -> None:
    """Plots one or several curves (tensors, arrays or lists).

    Args:
        X: x values, or the y values when ``Y`` is None.
        Y: y values: one curve or a list of curves. Default: ``None``.
        xlabel (str, optional): x label.
        ylabel (str, optional): y label.
        legend (list[str], optional): curve names.
        xlim (tuple, optional): x range.
        ylim (tuple, optional): y range.
        xscale (str): x scale. Default: ``'linear'``.
        yscale (str): y scale. Default: ``'linear'``.
        fmts (tuple[str]): line formats, cycled.
        figsize (tuple): figure size when ``axes`` is None.
        axes (Axes, optional): where to draw (default: the current axes).

    Returns:
        None
    """
    set_figsize(figsize)
    axes = axes if axes is not None else _plt().gca()
    if Y is None:
        X, Y = [[]] * (1 if _is_1d(X) else len(X)), X
    if _is_1d(X):
        X = [X]
    if _is_1d(Y):
        Y = [Y]
    if len(X) != len(Y):
        X = X * len(Y)
    axes.cla()
    for x, y, fmt in zip(X, Y, list(fmts) * (len(Y) // len(fmts) + 1)):
        if len(x):
            axes.plot(_np(x), _np(y), fmt)
        else:
            axes.plot(_np(y), fmt)
    set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend)


class Animator:
    """Draws curves that grow during training, in one figure updated in place.

    Args:
        xlabel (str, optional): x label.
        ylabel (str, optional): y label.
        legend (list[str], optional): curve names.
        xlim (tuple, optional): x range.
        ylim (tuple, optional): y range.
        xscale (str): x scale. Default: ``'linear'``.
        yscale (str): y scale. Default: ``'linear'``.
        fmts (tuple[str]): line formats.
        nrows (int): subplot rows. Default: ``1``.
        ncols (int): subplot columns. Default: ``1``.
        figsize (tuple): figure size. Default: ``(3.5, 2.5)``.
    """

    def __init__(self, xlabel: Optional[str] = None, ylabel: Optional[str] = None,
                 legend: Optional[Sequence[str]] = None, xlim: Any = None, ylim: Any = None,
                 xscale: str = "linear", yscale: str = "linear",
                 fmts: Sequence[str] = ("-", "m--", "g-.", "r:"), nrows: int = 1,
                 ncols: int = 1, figsize: Sequence[float] = (3.5, 2.5)) -> None:
        use_svg_display()
        self.fig, axes = _plt().subplots(nrows, ncols, figsize=figsize)
        self.axes = [axes] if nrows * ncols == 1 else list(np.ravel(axes))
        self.config_axes = lambda: set_axes(self.axes[0], xlabel, ylabel, xlim, ylim, xscale,
                                            yscale, legend)
        self.fmts = fmts
        self.X: Optional[List[List[float]]] = None
        self.Y: Optional[List[List[float]]] = None
        self._handle: Any = None
        self._notebook = in_notebook()
        if self._notebook:
            _plt().close(self.fig)  # shown through the display handle only, not twice

    def add(self, x: Any, y: Any) -> None:
        """Appends one point to each curve and redraws.

        Args:
            x: the x value (one for all curves, or one per curve).
            y: the y values, one per curve (None skips a curve).

        Returns:
            None
        """
        if not hasattr(y, "__len__"):
            y = [y]
        n = len(y)
        if not hasattr(x, "__len__"):
            x = [x] * n
        if self.X is None:
            self.X = [[] for _ in range(n)]
            self.Y = [[] for _ in range(n)]
        for i, (a, b) in enumerate(zip(x, y)):
            if a is not None and b is not None:
                self.X[i].append(float(a))
                self.Y[i].append(float(b))
        ax = self.axes[0]
        ax.cla()
        for xs, ys, fmt in zip(self.X, self.Y, list(self.fmts) * (n // len(self.fmts) + 1)):
            ax.plot(xs, ys, fmt)
        self.config_axes()
        self._show()

    def _show(self) -> None:
        if self._notebook:
            from IPython import display
            if self._handle is None:
                self._handle = display.display(self.fig, display_id=True)
            else:
                self._handle.update(self.fig)
            return
        pyplot = _plt()
        if pyplot.isinteractive() and pyplot.get_backend().lower() != "agg":
            self.fig.canvas.draw_idle()
            pyplot.pause(0.001)


def show_images(imgs: Any, num_rows: int, num_cols: int, titles: Optional[Sequence[str]] = None,
                scale: float = 1.5) -> Any:
    """Shows a grid of images.

    Args:
        imgs: images (tensors, arrays or PIL images).
        num_rows (int): grid rows.
        num_cols (int): grid columns.
        titles (list[str], optional): one title per image.
        scale (float): inches per image. Default: ``1.5``.

    Returns:
        numpy.ndarray: the Axes.
    """
    figsize = (num_cols * scale, num_rows * scale)
    _, axes = _plt().subplots(num_rows, num_cols, figsize=figsize)
    axes = np.ravel(axes)
    for i, (ax, img) in enumerate(zip(axes, imgs)):
        ax.imshow(_np(img) if hasattr(img, "shape") else img)
        ax.axes.get_xaxis().set_visible(False)
        ax.axes.get_yaxis().set_visible(False)
        if titles:
            ax.set_title(titles[i])
    return axes


def show_heatmaps(matrices: Any, xlabel: str, ylabel: str, titles: Optional[Sequence[str]] = None,
                  figsize: Sequence[float] = (2.5, 2.5), cmap: str = "Reds") -> None:
    """Shows a (rows, cols, h, w) grid of heat maps, e.g. attention weights.

    Args:
        matrices: a 4-d tensor or array.
        xlabel (str): x label of the bottom row.
        ylabel (str): y label of the left column.
        titles (list[str], optional): one title per column.
        figsize (tuple): size of one map. Default: ``(2.5, 2.5)``.
        cmap (str): color map. Default: ``'Reds'``.

    Returns:
        None
    """
    use_svg_display()
    m = _np(matrices)
    rows, cols = m.shape[0], m.shape[1]
    fig, axes = _plt().subplots(rows, cols, figsize=figsize, sharex=True, sharey=True,
                                squeeze=False)
    pcm = None
    for i in range(rows):
        for j in range(cols):
            ax = axes[i][j]
            pcm = ax.imshow(m[i, j], cmap=cmap)
            if i == rows - 1:
                ax.set_xlabel(xlabel)
            if j == 0:
                ax.set_ylabel(ylabel)
            if titles:
                ax.set_title(titles[j])
    fig.colorbar(pcm, ax=axes, shrink=0.6)


def show_list_len_pair_hist(legend: Sequence[str], xlabel: str, ylabel: str, xlist: Any,
                            ylist: Any) -> None:
    """Histogram of the lengths of two lists of sequences.

    Args:
        legend (list[str]): the two names.
        xlabel (str): x label.
        ylabel (str): y label.
        xlist (list): first list of sequences.
        ylist (list): second list of sequences.

    Returns:
        None
    """
    set_figsize()
    _, _, patches = _plt().hist([[len(l) for l in xlist], [len(l) for l in ylist]])
    _plt().xlabel(xlabel)
    _plt().ylabel(ylabel)
    for p in patches[1].patches:
        p.set_hatch("/")
    _plt().legend(legend)


def annotate(text: str, xy: Any, xytext: Any) -> None:
    """An arrow annotation on the current axes.

    Args:
        text (str): the label.
        xy (tuple): the point.
        xytext (tuple): where the label goes.

    Returns:
        None
    """
    _plt().gca().annotate(text, xy=xy, xytext=xytext, arrowprops=dict(arrowstyle="->"))


def show_trace_2d(f: Any, results: Sequence[Any]) -> None:
    """The path of a 2-d optimizer over the contours of ``f``.

    Args:
        f (Callable): f(x1, x2).
        results (list[tuple]): the (x1, x2) points visited.

    Returns:
        None
    """
    set_figsize()
    pts = np.asarray([[float(a), float(b)] for a, b in results])
    _plt().plot(pts[:, 0], pts[:, 1], "-o", color="#ff7f0e")
    x1, x2 = np.meshgrid(np.arange(-5.5, 1.0, 0.1), np.arange(-3.0, 1.0, 0.1))
    z = f(x1, x2)
    _plt().contour(x1, x2, _np(z), colors="#1f77b4")
    _plt().xlabel("x1")
    _plt().ylabel("x2")


def bbox_to_rect(bbox: Any, color: str) -> Any:
    """A matplotlib rectangle for a (x1, y1, x2, y2) box.

    Args:
        bbox: the box corners.
        color (str): the edge color.

    Returns:
        matplotlib.patches.Rectangle: the patch.
    """
    from matplotlib.patches import Rectangle
    b = [float(v) for v in bbox]
    return Rectangle((b[0], b[1]), b[2] - b[0], b[3] - b[1], fill=False, edgecolor=color,
                     linewidth=2)


def show_bboxes(axes: Any, bboxes: Any, labels: Any = None, colors: Any = None) -> None:
    """Draws boxes with optional labels on ``axes``.

    Args:
        axes (Axes): where to draw.
        bboxes: (n, 4) corner boxes.
        labels (list[str] or str, optional): one label per box.
        colors (list[str] or str, optional): box colors, cycled.

    Returns:
        None
    """
    def as_list(obj, default):
        if obj is None:
            return default
        return list(obj) if isinstance(obj, (list, tuple)) else [obj]
    labels = as_list(labels, [])
    colors = as_list(colors, ["b", "g", "r", "m", "c"])
    for i, bbox in enumerate(_np(bboxes)):
        color = colors[i % len(colors)]
        rect = bbox_to_rect(bbox, color)
        axes.add_patch(rect)
        if labels and len(labels) > i:
            text_color = "k" if color == "w" else "w"
            axes.text(rect.xy[0], rect.xy[1], labels[i], va="center", ha="center", fontsize=9,
                      color=text_color, bbox=dict(facecolor=color, lw=0))
