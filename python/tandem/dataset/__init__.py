"""tandem.dataset: data pipelines with MindSpore 2.x's names (mindspore.dataset).

    import tandem.dataset as ds
    from tandem.dataset import vision, transforms
    data = ds.FashionMnistDataset(usage="train", shuffle=True)
    data = data.map([vision.Rescale(1 / 255, 0), vision.HWC2CHW()], input_columns="image")
    data = data.map(transforms.TypeCast(tandem.int32), input_columns="label")
    for image, label in data.batch(64).create_tuple_iterator():
        ...

Built-in transforms run as C++ transforms on the Loader's worker threads; Python callables
passed to map run with the GIL held. Shuffling follows tandem.manual_seed / set_seed (or
dataset.config.set_seed).
"""
from __future__ import annotations

from . import _config as config
from . import transforms, vision
from ._engine import DictIterator, TupleIterator
from ._pipeline import Dataset
from ._sources import FashionMnistDataset, GeneratorDataset, MnistDataset, NumpySlicesDataset
from ._mindrecord import MindDataset

__all__ = ["Dataset", "FashionMnistDataset", "MnistDataset", "GeneratorDataset",
           "NumpySlicesDataset", "MindDataset", "TupleIterator", "DictIterator", "config", "transforms",
           "vision"]
