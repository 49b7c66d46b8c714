"""``tandem.train`` (mindspore.train): Model, callbacks and metrics.

    from tandem.train import Model, LossMonitor, ModelCheckpoint, CheckpointConfig
    model = Model(net, loss_fn, optimizer, metrics={"accuracy"})
    model.train(3, train_ds, callbacks=[LossMonitor(100)])
    print(model.eval(test_ds))          # {'accuracy': 0.9...}
"""
from .callback import (Callback, CheckpointConfig, History, LambdaCallback, LossMonitor,
                       ModelCheckpoint, RunContext, TimeMonitor)
from .metrics import (MAE, MSE, Accuracy, Loss, Metric, Top1CategoricalAccuracy,
                      Top5CategoricalAccuracy, TopKCategoricalAccuracy, get_metric_fn)
from .model import Model
from ..serialization import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint",
           "CheckpointConfig", "LambdaCallback", "History", "Metric", "Accuracy", "Loss", "MAE",
           "MSE", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "get_metric_fn", "save_checkpoint", "load_checkpoint",
           "load_param_into_net"]
