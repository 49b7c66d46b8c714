"""Training callbacks with MindSpore's interface (mindspore.train.Callback, RunContext,
LossMonitor, TimeMonitor, ModelCheckpoint + CheckpointConfig, LambdaCallback, History): Model.train calls each callback's on_train_* methods with a RunContext
whose original_args() holds the run's state (cur_epoch_num, cur_step_num, net_outputs...)."""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from .. import _C

Tensor = _C.Tensor


class _Params(dict):
    """The run's state: a dict whose keys are also attributes (cb_params.cur_step_num)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


class RunContext:
    """What a callback sees: the run's state and a way to stop it.

    Args:
        original_args (dict): the state (cur_epoch_num, cur_step_num, net_outputs, ...).
    """

    def __init__(self, original_args: Dict[str, Any]) -> None:
        self._args = original_args if isinstance(original_args, _Params) else \
            _Params(original_args)
        self._stop = False

    def original_args(self) -> Any:
        """The run's state.

        Returns:
            dict, whose keys are also attributes.
        """
        return self._args

    def request_stop(self) -> None:
        """Ends training after the current step."""
        self._stop = True

    def get_stop_requested(self) -> bool:
        """Whether a callback asked to stop.

        Returns:
            bool, the request.
        """
        return self._stop


class Callback:
    """The base of callbacks. Override the ``on_train_*`` / ``on_eval_*`` methods, or the
    older ``begin`` / ``epoch_begin`` / ``step_begin`` / ``step_end`` / ``epoch_end`` / ``end``
    ones, which the training defaults call."""

    def begin(self, run_context: RunContext) -> None:
        """Called once before training (legacy name).

        Args:
            run_context (RunContext): the run.
        """

    def epoch_begin(self, run_context: RunContext) -> None:
        """Called before each epoch (legacy name).

        Args:
            run_context (RunContext): the run.
        """

    def epoch_end(self, run_context: RunContext) -> None:
        """Called after each epoch (legacy name).

        Args:
            run_context (RunContext): the run.
        """

    def step_begin(self, run_context: RunContext) -> None:
        """Called before each step (legacy name).

        Args:
            run_context (RunContext): the run.
        """

    def step_end(self, run_context: RunContext) -> None:
        """Called after each step (legacy name).

        Args:
            run_context (RunContext): the run.
        """

    def end(self, run_context: RunContext) -> None:
        """Called once after training (legacy name).

        Args:
            run_context (RunContext): the run.
        """

    def on_train_begin(self, run_context: RunContext) -> None:
        """Before training.

        Args:
            run_context (RunContext): the run.
        """
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        """Before each training epoch.

        Args:
            run_context (RunContext): the run.
        """
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """After each training epoch.

        Args:
            run_context (RunContext): the run.
        """
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        """Before each training step.

        Args:
            run_context (RunContext): the run.
        """
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> None:
        """After each training step.

        Args:
            run_context (RunContext): the run.
        """
        self.step_end(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        """After training.

        Args:
            run_context (RunContext): the run.
        """
        self.end(run_context)

    def on_eval_begin(self, run_context: RunContext) -> None:
        """Before evaluation.

        Args:
            run_context (RunContext): the run.
        """
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        """Before the evaluation pass.

        Args:
            run_context (RunContext): the run.
        """
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        """After the evaluation pass.

        Args:
            run_context (RunContext): the run.
        """
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context: RunContext) -> None:
        """Before each evaluation step.

        Args:
            run_context (RunContext): the run.
        """
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context: RunContext) -> None:
        """After each evaluation step.

        Args:
            run_context (RunContext): the run.
        """
        self.step_end(run_context)

    def on_eval_end(self, run_context: RunContext) -> None:
        """After evaluation.

        Args:
            run_context (RunContext): the run.
        """
        self.end(run_context)


def _loss_value(outputs: Any) -> Optional[float]:
    """The loss among a step's outputs (the first tensor), as a float."""
    if isinstance(outputs, (tuple, list)) and outputs:
        outputs = outputs[0]
    if isinstance(outputs, Tensor):
        a = outputs.asnumpy()
        return float(np.mean(a))
    if isinstance(outputs, (int, float, np.floating)):
        return float(outputs)
    return None


class LossMonitor(Callback):
    """Prints ``epoch: E step: S, loss is L`` every `per_print_times` steps (counted over
    the whole run; S is the step within the epoch), and raises when the loss is NaN or
    infinite.

    Args:
        per_print_times (int): print every this many steps; 0 prints nothing.
            Default: ``1`` .
    """

    def __init__(self, per_print_times: int = 1) -> None:
        if not isinstance(per_print_times, int) or isinstance(per_print_times, bool) \
                or per_print_times < 0:
            raise ValueError(f"LossMonitor: per_print_times must be a non-negative int, got "
                             f"{per_print_times!r}")
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Prints the loss when due.

        Args:
            run_context (RunContext): the run.
        """
        cb = run_context.original_args()
        loss = _loss_value(cb.net_outputs)
        step_in_epoch = (cb.cur_step_num - 1) % cb.batch_num + 1
        if loss is not None and not np.isfinite(loss):
            raise ValueError(f"epoch: {cb.cur_epoch_num} step: {step_in_epoch}: the loss is "
                             f"{loss}; training stopped")
        if self._per_print_times and \
                cb.cur_step_num - self._last_print_time >= self._per_print_times:
            self._last_print_time = cb.cur_step_num
            shown = str(np.float32(loss)) if loss is not None else str(cb.net_outputs)
            print(f"epoch: {cb.cur_epoch_num} step: {step_in_epoch}, loss is {shown}",
                  flush=True)

    def on_train_end(self, run_context: RunContext) -> None:
        """Resets the step counter for a next run.

        Args:
            run_context (RunContext): the run.
        """
        self._last_print_time = 0


class TimeMonitor(Callback):
    """Prints each epoch's time and the time per step.

    Args:
        data_size (int, optional): steps per epoch (the dataset's size when ``None``).
            Default: ``None`` .
        data_time (bool): also print the time spent waiting for data. Default: ``False`` .
    """

    def __init__(self, data_size: Optional[int] = None, data_time: bool = False) -> None:
        if data_size is not None and (not isinstance(data_size, int) or data_size <= 0):
            raise ValueError(f"TimeMonitor: data_size must be a positive int, got {data_size!r}")
        self.data_size = data_size
        self.data_time = data_time
        self._t0 = 0.0

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        """Starts the clock.

        Args:
            run_context (RunContext): the run.
        """
        self._t0 = time.perf_counter()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Prints the epoch's time.

        Args:
            run_context (RunContext): the run.
        """
        cb = run_context.original_args()
        ms = (time.perf_counter() - self._t0) * 1000.0
        steps = self.data_size or cb.batch_num or 1
        print(f"epoch time: {ms:.3f} ms, per step time: {ms / steps:.3f} ms", flush=True)


class CheckpointConfig:
    """When ModelCheckpoint saves and how many files it keeps.

    Args:
        save_checkpoint_steps (int): save every this many steps. Default: ``1`` .
        save_checkpoint_seconds (int): save every this many seconds instead (when steps is
            0 or None). Default: ``0`` .
        keep_checkpoint_max (int): keep at most this many files (oldest removed).
            Default: ``5`` .
        keep_checkpoint_per_n_minutes (int): keep one file per this many minutes instead.
            Default: ``0`` .
        integrated_save (bool): accepted for compatibility. Default: ``True`` .
        async_save (bool): accepted for compatibility (saves are synchronous).
            Default: ``False`` .
        saved_network (Cell, optional): save this network instead of the trained one.
            Default: ``None`` .
        append_info (list, optional): "epoch_num", "step_num" and/or a dict of extra
            entries stored in each file. Default: ``None`` .
        enc_key (None): encryption is not supported (must be ``None``). Default: ``None`` .
        enc_mode (str): unused. Default: ``'AES-GCM'`` .
        exception_save (bool): accepted for compatibility. Default: ``False`` .
        **kwargs: accepted for compatibility.
    """

    def __init__(self, save_checkpoint_steps: Optional[int] = 1,
                 save_checkpoint_seconds: Optional[int] = 0, keep_checkpoint_max: int = 5,
                 keep_checkpoint_per_n_minutes: int = 0, integrated_save: bool = True,
                 async_save: bool = False, saved_network: Any = None,
                 append_info: Optional[List[Any]] = None, enc_key: Optional[bytes] = None,
                 enc_mode: str = "AES-GCM", exception_save: bool = False,
                 **kwargs: Any) -> None:
        for name, v in (("save_checkpoint_steps", save_checkpoint_steps),
                        ("save_checkpoint_seconds", save_checkpoint_seconds),
                        ("keep_checkpoint_max", keep_checkpoint_max),
                        ("keep_checkpoint_per_n_minutes", keep_checkpoint_per_n_minutes)):
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                raise ValueError(f"CheckpointConfig: {name} must be a non-negative int, got {v!r}")
        if not save_checkpoint_steps and not save_checkpoint_seconds:
            raise ValueError("CheckpointConfig: save_checkpoint_steps and "
                             "save_checkpoint_seconds cannot both be 0")
        if enc_key is not None:
            raise ValueError("CheckpointConfig: encrypted checkpoints are not supported")
        self.save_checkpoint_steps = save_checkpoint_steps
        self.save_checkpoint_seconds = save_checkpoint_seconds
        self.keep_checkpoint_max = keep_checkpoint_max
        self.keep_checkpoint_per_n_minutes = keep_checkpoint_per_n_minutes
        self.integrated_save = integrated_save
        self.async_save = async_save
        self.saved_network = saved_network
        self.append_info = list(append_info) if append_info else []


class ModelCheckpoint(Callback):
    """Saves the network's parameters during training as ``{prefix}-{epoch}_{step}.ckpt``
    (step within the epoch) in `directory`; every file is written to a temporary name and
    renamed into place, so a crash never leaves a partial checkpoint.

    In a data-parallel job (``communication.init()`` or ``init_process_group`` called, more
    than one rank) only rank 0 writes: the ranks hold the same parameters, so one copy is
    enough and the ranks never race on the same file names. (MindSpore instead writes on
    every rank into rank-specific directories.) Every rank still tracks the schedule, and
    ``latest_ckpt_file_name`` names rank 0's file. ``save_checkpoint`` itself writes on
    whichever rank calls it.

    Args:
        prefix (str): the file name prefix. Default: ``'CKP'`` .
        directory (str, optional): where to write (the working directory when ``None``;
            created if missing). Default: ``None`` .
        config (CheckpointConfig, optional): when to save (every step when ``None``).
            Default: ``None`` .
    """

    def __init__(self, prefix: str = "CKP", directory: Optional[str] = None,
                 config: Optional[CheckpointConfig] = None) -> None:
        if not isinstance(prefix, str) or not prefix or "/" in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file name part, got "
                             f"{prefix!r}")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: config must be a CheckpointConfig, got "
                            f"{type(config).__name__}")
        self._prefix = prefix
        self._directory = directory or os.getcwd()
        self._config = config or CheckpointConfig()
        self._saved: List[str] = []
        self._last_step = 0
        self._last_time = time.time()
        self.latest_ckpt_file_name = ""

    def on_train_begin(self, run_context: RunContext) -> None:
        """Creates the directory.

        Args:
            run_context (RunContext): the run.
        """
        if _writes_checkpoints():
            os.makedirs(self._directory, exist_ok=True)
        self._last_time = time.time()

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Saves when due.

        Args:
            run_context (RunContext): the run.
        """
        cb = run_context.original_args()
        cfg = self._config
        due = False
        if cfg.save_checkpoint_steps:
            due = cb.cur_step_num - self._last_step >= cfg.save_checkpoint_steps
        elif cfg.save_checkpoint_seconds:
            due = time.time() - self._last_time >= cfg.save_checkpoint_seconds
        if due:
            self._save(cb)

    def on_train_end(self, run_context: RunContext) -> None:
        """Saves the final state unless the last step was saved.

        Args:
            run_context (RunContext): the run.
        """
        cb = run_context.original_args()
        if cb.cur_step_num != self._last_step:
            self._save(cb)

    def _save(self, cb: Any) -> None:
        from ..serialization import save_checkpoint
        step_in_epoch = (cb.cur_step_num - 1) % cb.batch_num + 1
        name = f"{self._prefix}-{cb.cur_epoch_num}_{step_in_epoch}.ckpt"
        path = os.path.join(self._directory, name)
        extra: Dict[str, Any] = {}
        for item in self._config.append_info:
            if item == "epoch_num":
                extra["epoch_num"] = int(cb.cur_epoch_num)
            elif item == "step_num":
                extra["step_num"] = int(cb.cur_step_num)
            elif isinstance(item, dict):
                extra.update(item)
        net = self._config.saved_network or cb.network
        writes = _writes_checkpoints()
        if writes:  # atomic: tmp + fsync + rename
            save_checkpoint(net, path, append_dict=extra or None)
        self._last_step = cb.cur_step_num
        self._last_time = time.time()
        self.latest_ckpt_file_name = path
        if path in self._saved:
            self._saved.remove(path)
        self._saved.append(path)
        keep = self._config.keep_checkpoint_max
        while keep and len(self._saved) > keep:
            old = self._saved.pop(0)
            if writes and os.path.exists(old):
                os.remove(old)


def _writes_checkpoints() -> bool:
    """False on the ranks other than 0 of a data-parallel job (rank 0 writes for all)."""
    from .. import _distributed
    return not _distributed.is_initialized() or _distributed.get_world_size() == 1 \
        or _distributed.get_rank() == 0


class LambdaCallback(Callback):
    """A callback from functions: each argument (``on_train_step_end=fn``, ...) is called
    with the RunContext.

    Args:
        **hooks (Callable): functions by callback method name.
    """

    def __init__(self, **hooks: Callable[[RunContext], Any]) -> None:
        for name, fn in hooks.items():
            if not hasattr(Callback, name) or not callable(fn):
                raise ValueError(f"LambdaCallback: {name!r} is not a callback method")
            setattr(self, name, fn)


class History(Callback):
    """Records the loss after every epoch in ``epoch['net_output']`` (and eval metrics)."""

    def __init__(self) -> None:
        self.epoch: Dict[str, List[Any]] = {}
        self.history: Dict[str, List[Any]] = {}

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Records the epoch's last loss.

        Args:
            run_context (RunContext): the run.
        """
        cb = run_context.original_args()
        self.epoch.setdefault("epoch", []).append(cb.cur_epoch_num)
        self.history.setdefault("net_output", []).append(_loss_value(cb.net_outputs))
        for k, v in (cb.get("eval_results") or {}).items():
            self.history.setdefault(k, []).append(v)


__all__ = ["Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint",
           "CheckpointConfig", "LambdaCallback", "History"]
