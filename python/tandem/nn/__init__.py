"""``tandem.nn``: MindSpore-style network building blocks (Cell, Dense, Conv2d with
pad_mode, SequentialCell, SoftmaxCrossEntropyWithLogits, ...): a name map over tandem._layers
(the PyTorch names are in ``tandem.mint.nn``)."""
from .._layers.cell import Cell, Module  # noqa: F401
from .parameter import Parameter  # noqa: F401  (MindSpore's constructor and repr)
from .. import _layers as _L
from .._layers import (  # noqa: F401
    # containers
    SequentialCell, CellList, CellDict,
    # linear and shape
    Dense, Identity, Flatten, Unflatten,
    # activations
    ReLU, ReLU6, Sigmoid, Tanh, ELU, CELU, SELU, SiLU, Mish, Softplus, Hardtanh, LogSigmoid,
    Softsign, Tanhshrink, Softmin, GLU, Threshold, get_activation,
    # pooling
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d,
    # normalization
    InstanceNorm1d, InstanceNorm2d,
    # padding
    ZeroPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d, ReplicationPad1d,
    ReplicationPad2d,
    # recurrent and attention
    RNNCell, LSTMCell, GRUCell, MultiheadAttention,
    # losses
    HuberLoss, SoftmaxCrossEntropyWithLogits,
)

# Layers whose MindSpore constructor differs from PyTorch's.
Conv1d = _L.MSConv1d
Conv2d = _L.MSConv2d
Softmax = _L.MSSoftmax
LogSoftmax = _L.MSLogSoftmax
GELU = _L.MSGELU
LeakyReLU = _L.MSLeakyReLU
PReLU = _L.MSPReLU
HSigmoid = _L.Hardsigmoid
HSwish = _L.Hardswish
SeLU = _L.SELU
MaxPool1d = _L.MSMaxPool1d
MaxPool2d = _L.MSMaxPool2d
AvgPool1d = _L.MSAvgPool1d
AvgPool2d = _L.MSAvgPool2d
BatchNorm1d = _L.MSBatchNorm1d
BatchNorm2d = _L.MSBatchNorm2d
LayerNorm = _L.MSLayerNorm
GroupNorm = _L.MSGroupNorm
Dropout = _L.MSDropout
Embedding = _L.MSEmbedding
RNN = _L.MSRNN
LSTM = _L.MSLSTM
GRU = _L.MSGRU
MSELoss = _L.MSMSELoss
L1Loss = _L.MSL1Loss
SmoothL1Loss = _L.MSSmoothL1Loss
CrossEntropyLoss = _L.MSCrossEntropyLoss
NLLLoss = _L.MSNLLLoss
BCELoss = _L.MSBCELoss
BCEWithLogitsLoss = _L.MSBCEWithLogitsLoss
KLDivLoss = _L.MSKLDivLoss

# Optimizers (called as optimizer(grads)), dynamic learning rates and gradient utilities.
from .optim import Optimizer, SGD, Momentum, Adam, AdamWeightDecay  # noqa: E402,F401
from .dynamic_lr import (piecewise_constant_lr, exponential_decay_lr,  # noqa: E402,F401
                         natural_exp_decay_lr, inverse_decay_lr, cosine_decay_lr,
                         polynomial_decay_lr, warmup_lr)
from . import utils  # noqa: E402,F401

__all__ = [
    "Adam", "AdamWeightDecay", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d",
    "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d",
    "CELU", "Cell", "CellDict", "CellList", "ConstantPad1d", "ConstantPad2d", "Conv1d",
    "Conv2d", "CrossEntropyLoss", "Dense", "Dropout", "ELU", "Embedding", "Flatten", "GELU",
    "GLU", "GRU", "GRUCell", "GroupNorm", "HSigmoid", "HSwish", "Hardtanh", "HuberLoss",
    "Identity", "InstanceNorm1d", "InstanceNorm2d", "KLDivLoss", "L1Loss", "LSTM", "LSTMCell",
    "LayerNorm", "LeakyReLU", "LogSigmoid", "LogSoftmax", "MSELoss", "MaxPool1d", "MaxPool2d",
    "Mish", "Module", "Momentum", "MultiheadAttention", "NLLLoss", "Optimizer", "PReLU",
    "Parameter", "RNN", "RNNCell", "ReLU", "ReLU6", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "SELU", "SGD", "SeLU", "SequentialCell", "SiLU",
    "Sigmoid", "SmoothL1Loss", "Softmax", "SoftmaxCrossEntropyWithLogits", "Softmin",
    "Softplus", "Softsign", "Tanh", "Tanhshrink", "Threshold", "Unflatten", "ZeroPad2d",
    "cosine_decay_lr", "dynamic_lr", "exponential_decay_lr", "get_activation",
    "inverse_decay_lr", "natural_exp_decay_lr", "optim", "piecewise_constant_lr",
    "polynomial_decay_lr", "utils", "warmup_lr",
]
from .graph_cell import GraphCell  # noqa: E402,F401  (deployment: tandem/export.py)
from .wrap import (WithLossCell, WithEvalCell, TrainOneStepCell,  # noqa: E402,F401
                   TrainOneStepWithLossScaleCell, FixedLossScaleUpdateCell,
                   DynamicLossScaleUpdateCell)
from ..train.metrics import Accuracy, Loss, MAE, MSE, Metric  # noqa: E402,F401  (MindSpore 1.x names)
__all__ += ["WithLossCell", "WithEvalCell", "TrainOneStepCell", "TrainOneStepWithLossScaleCell",
            "FixedLossScaleUpdateCell", "DynamicLossScaleUpdateCell", "Accuracy", "Loss", "MAE", "MSE",
            "Metric"]
__all__ += ["GraphCell"]  # deployment
from .grad_reducer import DistributedGradReducer  # noqa: E402,F401  (data parallelism)
__all__ += ["DistributedGradReducer"]
