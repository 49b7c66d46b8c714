"""``tandem.mint.nn``: PyTorch-style neural-network building blocks (Module, Linear, Conv2d,
Sequential, losses, ...) and ``functional``: a name map over tandem._layers, which also serves
the MindSpore names of ``tandem.nn``."""
from . import functional  # noqa: F401
from ..._layers.cell import Module, Cell  # noqa: F401
from ..._layers.parameter import Parameter  # noqa: F401
from ..._layers import (  # noqa: F401
    # containers
    Sequential, ModuleList, ModuleDict, ParameterList,
    # linear and shape
    Identity, Linear, Bilinear, Flatten, Unflatten,
    # convolution
    Conv1d, Conv2d, ConvTranspose2d,
    # pooling
    MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool1d, AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    # normalization
    BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, LayerNorm, GroupNorm,
    # dropout
    Dropout, Dropout1d, Dropout2d,
    # activations
    ReLU, ReLU6, LeakyReLU, ELU, SELU, CELU, GELU, SiLU, Mish, Softplus, Hardtanh, Hardsigmoid,
    Hardswish, Sigmoid, Tanh, LogSigmoid, Softmax, LogSoftmax, Softmin, Softsign, Tanhshrink,
    PReLU, GLU, Threshold,
    # padding
    ZeroPad1d, ZeroPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d,
    ReplicationPad1d, ReplicationPad2d,
    # embedding, recurrent, attention
    Embedding, RNNBase, RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell, MultiheadAttention,
    # losses
    CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss,
    BCEWithLogitsLoss, KLDivLoss,
    # lazy
    LazyLinear, LazyConv1d, LazyConv2d, LazyBatchNorm1d, LazyBatchNorm2d,
)
from . import init  # noqa: E402,F401
from . import utils  # noqa: E402,F401
from . import parallel  # noqa: E402,F401
from .parallel import DataParallel, DistributedDataParallel  # noqa: E402,F401

__all__ = [
    "functional", "init", "utils", "parallel", "DataParallel", "DistributedDataParallel", "Module", "Cell", "Parameter",
    "Sequential", "ModuleList", "ModuleDict", "ParameterList",
    "Identity", "Linear", "Bilinear", "Flatten", "Unflatten",
    "Conv1d", "Conv2d", "ConvTranspose2d",
    "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveMaxPool2d",
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "LayerNorm",
    "GroupNorm",
    "Dropout", "Dropout1d", "Dropout2d",
    "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Softplus",
    "Hardtanh", "Hardsigmoid", "Hardswish", "Sigmoid", "Tanh", "LogSigmoid", "Softmax",
    "LogSoftmax", "Softmin", "Softsign", "Tanhshrink", "PReLU", "GLU", "Threshold",
    "ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d",
    "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d",
    "Embedding", "RNNBase", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell",
    "MultiheadAttention",
    "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss",
    "BCEWithLogitsLoss", "KLDivLoss",
    "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d", "LazyBatchNorm2d",
]
