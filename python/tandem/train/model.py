"""``tandem.train.Model`` (mindspore.train.Model): training, evaluation and prediction of a
network with a loss, an optimizer, metrics and callbacks."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from .. import _C
from ..jit import GRAPH_MODE, get_context
from .callback import Callback, RunContext, _Params
from .metrics import Metric, metrics_dict

Tensor = _C.Tensor


def _callbacks(callbacks: Union[None, Callback, Sequence[Callback]]) -> List[Callback]:
    if callbacks is None:
        return []
    cbs = [callbacks] if isinstance(callbacks, Callback) else list(callbacks)
    for c in cbs:
        if not isinstance(c, Callback):
            raise TypeError(f"Model: callbacks must be Callback objects, got {type(c).__name__}")
    return cbs


def _as_tuple(row: Any) -> tuple:
    return tuple(row) if isinstance(row, (list, tuple)) else (row,)


class Model:
    """Trains and evaluates a network (MindSpore's high-level API).

    With `loss_fn` and `optimizer` the training step is ``TrainOneStepCell(WithLossCell(
    network, loss_fn), optimizer)``; with neither, `network` itself is the step (it returns the
    loss and updates the parameters, e.g. a TrainOneStepCell). In GRAPH_MODE the step Cell
    compiles into one graph (forward, backward and update), as ``jit`` does.

    Args:
        network (Cell): the network (or a whole training step).
        loss_fn (Cell, optional): the loss, called with (outputs, label). Default: ``None`` .
        optimizer (Optimizer, optional): a ``tandem.nn`` optimizer. Default: ``None`` .
        metrics (Union[dict, set], optional): metric names (``{'accuracy', 'loss'}``) or
            name -> Metric, computed by ``eval``. Default: ``None`` .
        eval_network (Cell, optional): returns (loss, outputs, label) for evaluation
            (built from network and loss_fn when ``None``). Default: ``None`` .
        eval_indexes (list, optional): positions of loss, outputs and label in
            eval_network's outputs. Default: ``None`` .
        amp_level (str): 'O0', 'O1', 'O2', 'O3' or 'auto': the training step is
            ``amp.build_train_network(network, optimizer, loss_fn, level=amp_level)``.
            Default: ``'O0'`` .
        boost_level (str): ``'O0'`` only. Default: ``'O0'`` .
        **kwargs: ``loss_scale_manager`` (amp.FixedLossScaleManager /
            DynamicLossScaleManager) for build_train_network; others ignored.
    """

    def __init__(self, network: Any, loss_fn: Any = None, optimizer: Any = None,
                 metrics: Union[None, set, dict, list] = None, eval_network: Any = None,
                 eval_indexes: Optional[List[int]] = None, amp_level: str = "O0",
                 boost_level: str = "O0", **kwargs: Any) -> None:
        from ..nn.wrap import TrainOneStepCell, WithEvalCell, WithLossCell
        manager = kwargs.get("loss_scale_manager")
        amp = amp_level != "O0" or manager is not None
        if amp and (loss_fn is None or optimizer is None):
            raise ValueError("Model: amp_level / loss_scale_manager need loss_fn and optimizer")
        if boost_level != "O0":
            raise NotImplementedError(f"Model: boost_level={boost_level!r} is not supported")
        if optimizer is not None and loss_fn is None:
            raise ValueError("Model: an optimizer needs a loss_fn (or pass the whole training "
                             "step as network with neither)")
        if eval_indexes is not None and (len(eval_indexes) != 3 or eval_network is None):
            raise ValueError("Model: eval_indexes needs eval_network and three positions "
                             "(loss, outputs, label)")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metric_fns: Dict[str, Metric] = metrics_dict(metrics)
        if amp:
            from ..amp import build_train_network
            extra = {"loss_scale_manager": manager} if "loss_scale_manager" in kwargs else {}
            self._train_network = build_train_network(network, optimizer, loss_fn,
                                                      level=amp_level, **extra)
            # the converted network (O2/O3 wrap it to cast outputs to float32)
            network = self._train_network.network._backbone
            self._network = network
        elif loss_fn is not None and optimizer is not None:
            self._train_network = TrainOneStepCell(WithLossCell(network, loss_fn), optimizer)
        elif loss_fn is not None:
            self._train_network = WithLossCell(network, loss_fn)
        else:
            self._train_network = network
        if eval_network is not None:
            self._eval_network = eval_network
            self._eval_indexes = eval_indexes or [0, 1, 2]
        elif loss_fn is not None:
            self._eval_network = WithEvalCell(network, loss_fn)
            self._eval_indexes = [0, 1, 2]
        else:
            self._eval_network = None
            self._eval_indexes = None

    @property
    def train_network(self) -> Any:
        """The Cell one training step calls."""
        return self._train_network

    @property
    def predict_network(self) -> Any:
        """The network predict() calls."""
        return self._network

    @property
    def eval_network(self) -> Any:
        """The Cell eval() calls."""
        return self._eval_network

    def train(self, epoch: int, train_dataset: Any,
              callbacks: Union[None, Callback, Sequence[Callback]] = None,
              dataset_sink_mode: bool = False, sink_size: int = -1,
              initial_epoch: int = 0) -> None:
        """Trains for `epoch` epochs over `train_dataset` (each row is the step's inputs).

        Args:
            epoch (int): the last epoch number (training runs initial_epoch+1 .. epoch).
            train_dataset (Dataset): a tandem.dataset pipeline.
            callbacks (Union[Callback, list[Callback]], optional): called during training.
                Default: ``None`` .
            dataset_sink_mode (bool): accepted; data always goes through the host.
                Default: ``False`` .
            sink_size (int): with sink mode, steps per epoch (-1: the whole dataset).
                Default: ``-1`` .
            initial_epoch (int): epochs already done (for resumed runs). Default: ``0`` .
        """
        self._run_train(epoch, train_dataset, callbacks, sink_size if dataset_sink_mode else -1,
                        initial_epoch, None, 1)

    def fit(self, epoch: int, train_dataset: Any, valid_dataset: Any = None,
            valid_frequency: int = 1,
            callbacks: Union[None, Callback, Sequence[Callback]] = None,
            dataset_sink_mode: bool = False, valid_dataset_sink_mode: bool = False,
            sink_size: int = -1, initial_epoch: int = 0) -> None:
        """Trains, evaluating on `valid_dataset` every `valid_frequency` epochs (the results
        are printed and stored in the callbacks' state as ``eval_results``).

        Args:
            epoch (int): the last epoch number.
            train_dataset (Dataset): the training data.
            valid_dataset (Dataset, optional): the validation data. Default: ``None`` .
            valid_frequency (int): evaluate every this many epochs. Default: ``1`` .
            callbacks (Union[Callback, list[Callback]], optional): called during training.
                Default: ``None`` .
            dataset_sink_mode (bool): accepted. Default: ``False`` .
            valid_dataset_sink_mode (bool): accepted. Default: ``False`` .
            sink_size (int): with sink mode, steps per epoch. Default: ``-1`` .
            initial_epoch (int): epochs already done. Default: ``0`` .
        """
        if not isinstance(valid_frequency, int) or valid_frequency < 1:
            raise ValueError(f"Model.fit: valid_frequency must be a positive int, got "
                             f"{valid_frequency!r}")
        self._run_train(epoch, train_dataset, callbacks, sink_size if dataset_sink_mode else -1,
                        initial_epoch, valid_dataset, valid_frequency)

    def _run_train(self, epoch: int, dataset: Any, callbacks: Any, sink_size: int,
                   initial_epoch: int, valid_dataset: Any, valid_frequency: int) -> None:
        if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 1:
            raise ValueError(f"Model.train: epoch must be a positive int, got {epoch!r}")
        if not isinstance(initial_epoch, int) or not 0 <= initial_epoch < epoch:
            raise ValueError(f"Model.train: initial_epoch must be in [0, epoch), got "
                             f"{initial_epoch!r}")
        if self._optimizer is None and self._loss_fn is not None:
            raise ValueError("Model.train: needs an optimizer (Model(network, loss_fn, "
                             "optimizer)) or a network that is a whole training step")
        cbs = _callbacks(callbacks)
        steps = dataset.get_dataset_size()
        if sink_size > 0:
            steps = min(steps, sink_size)
        cb = _Params(train_network=self._train_network, network=self._network,
                     optimizer=self._optimizer, loss_fn=self._loss_fn, train_dataset=dataset,
                     epoch_num=epoch, batch_num=steps, cur_epoch_num=initial_epoch,
                     cur_step_num=initial_epoch * steps, net_outputs=None, mode="train",
                     dataset_sink_mode=sink_size > 0,
                     graph_mode=get_context("mode") == GRAPH_MODE)
        ctx = RunContext(cb)
        self._train_network.set_train(True)
        for c in cbs:
            c.on_train_begin(ctx)
        iterator = dataset.create_tuple_iterator(num_epochs=epoch - initial_epoch)
        for e in range(initial_epoch + 1, epoch + 1):
            cb.cur_epoch_num = e
            for c in cbs:
                c.on_train_epoch_begin(ctx)
            for i, row in enumerate(iterator):
                if i >= steps:
                    break
                cb.cur_step_num += 1
                for c in cbs:
                    c.on_train_step_begin(ctx)
                cb.net_outputs = self._train_network(*_as_tuple(row))
                for c in cbs:
                    c.on_train_step_end(ctx)
                if ctx.get_stop_requested():
                    break
            if valid_dataset is not None and (e - initial_epoch) % valid_frequency == 0:
                cb.eval_results = self.eval(valid_dataset)
                self._train_network.set_train(True)
                print(f"Eval result: epoch {e}, metrics: {cb.eval_results}", flush=True)
            for c in cbs:
                c.on_train_epoch_end(ctx)
            if ctx.get_stop_requested():
                break
        for c in cbs:
            c.on_train_end(ctx)
        iterator.stop()

    def eval(self, valid_dataset: Any,
             callbacks: Union[None, Callback, Sequence[Callback]] = None,
             dataset_sink_mode: bool = False) -> Dict[str, Any]:
        """Computes the metrics over `valid_dataset`.

        Args:
            valid_dataset (Dataset): rows of (data, label).
            callbacks (Union[Callback, list[Callback]], optional): called during evaluation.
                Default: ``None`` .
            dataset_sink_mode (bool): accepted. Default: ``False`` .

        Returns:
            dict, metric name -> value.
        """
        if not self._metric_fns:
            raise ValueError("Model.eval: no metrics; pass metrics={'accuracy'} (or a dict) "
                             "to Model")
        if self._eval_network is None:
            raise ValueError("Model.eval: needs a loss_fn or an eval_network")
        cbs = _callbacks(callbacks)
        cb = _Params(eval_network=self._eval_network, valid_dataset=valid_dataset,
                     batch_num=valid_dataset.get_dataset_size(), cur_step_num=0,
                     cur_epoch_num=1, net_outputs=None, mode="eval")
        ctx = RunContext(cb)
        for m in self._metric_fns.values():
            m.clear()
        self._eval_network.set_train(False)
        for c in cbs:
            c.on_eval_begin(ctx)
            c.on_eval_epoch_begin(ctx)
        li, oi, yi = self._eval_indexes or [0, 1, 2]
        for row in valid_dataset.create_tuple_iterator(num_epochs=1):
            cb.cur_step_num += 1
            for c in cbs:
                c.on_eval_step_begin(ctx)
            out = self._eval_network(*_as_tuple(row))
            cb.net_outputs = out
            for m in self._metric_fns.values():
                if type(m).__name__ == "Loss":
                    m.update(out[li])
                else:
                    m.update(out[oi], out[yi])
            for c in cbs:
                c.on_eval_step_end(ctx)
        results = {k: m.eval() for k, m in self._metric_fns.items()}
        cb.metrics = results
        for c in cbs:
            c.on_eval_epoch_end(ctx)
            c.on_eval_end(ctx)
        return results

    def predict(self, *predict_data: Any, backend: Optional[str] = None) -> Any:
        """The network's output on `predict_data`, in evaluation mode.

        Args:
            *predict_data (Tensor): the network's inputs.
            backend (str, optional): accepted for compatibility. Default: ``None`` .

        Returns:
            Tensor (or what the network returns).
        """
        self._network.set_train(False)
        return self._network(*predict_data)


__all__ = ["Model"]
