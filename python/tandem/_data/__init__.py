"""The data engine's Python side, shared by ``tandem.dataset`` (MindSpore names) and
``tandem.utils.data`` / ``tandem.vision`` (PyTorch names): C++ loaders, seeds, the transform
base and the one Compose, and the IDX (MNIST-format) reader."""
