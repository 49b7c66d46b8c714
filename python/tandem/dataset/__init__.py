"""tandem.dataset: data pipelines with MindSpore 2.x's names (mindspore.dataset).

    import tandem.dataset as ds
    from tandem.dataset import vision, transforms
    data = ds.FashionMnistDataset(usage="train", shuffle=True)
    data = data.map([vision.Rescale(1 / 255, 0), vision.HWC2CHW()], input_columns="image")
    data = data.map(transforms.TypeCast(tandem.int32), input_columns="label")
    for image, label in data.batch(64).create_tuple_iterator():
        ...

Built-in transforms run as C++ transforms on the Loader's worker threads; Python callables
passed to map run with the GIL held. Shuffling and the samplers follow tandem.manual_seed /
set_seed (or dataset.config.set_seed).
"""
from __future__ import annotations

from . import _config as config
from . import transforms, vision
from ._combine import ConcatDataset, ZipDataset
from ._engine import DictIterator, TupleIterator
from ._pipeline import Dataset
from ._samplers import (DistributedSampler, IterSampler, PKSampler, RandomSampler, Sampler,
                        SequentialSampler, SubsetRandomSampler, SubsetSampler,
                        WeightedRandomSampler)
from ._sources import FashionMnistDataset, GeneratorDataset, MnistDataset, NumpySlicesDataset
from ._mindrecord import MindDataset
from ._stream import BatchInfo

__all__ = ["Dataset", "FashionMnistDataset", "MnistDataset", "GeneratorDataset",
           "NumpySlicesDataset", "MindDataset", "ConcatDataset", "ZipDataset", "TupleIterator",
           "DictIterator", "BatchInfo", "Sampler", "IterSampler", "SequentialSampler",
           "RandomSampler", "SubsetSampler", "SubsetRandomSampler", "PKSampler",
           "DistributedSampler", "WeightedRandomSampler", "config", "transforms", "vision"]
