"""``from tandem import d2l``: the helpers of "Dive into Deep Learning" (PyTorch edition)
written on tandem.mint, so the book's code runs with ``import torch`` replaced by
``from tandem import mint as torch`` and ``from d2l import torch as d2l`` by this import.

Data comes from local files only (see :mod:`tandem.d2l.data_hub`: ``$TANDEM_DATA``, the
caller's cache dir, ``~/.tandem/data``; Fashion-MNIST from the dataset-fashion-mnist package).
Plots use matplotlib as configured (the backend is never switched); in Jupyter the Animator
redraws one inline figure in place. ``$TANDEM_D2L_MAX_EPOCHS`` and ``$TANDEM_D2L_MAX_BATCHES``
bound the training loops, for quick runs of the book's code."""
from __future__ import annotations

import numpy as _np

from .. import mint as _mint
from ..mint import nn as _nn
from .core import (Accumulator, Benchmark, Residual, Timer, accuracy, corr2d,  # noqa: F401
                   evaluate_accuracy, evaluate_accuracy_gpu, evaluate_loss,
                   get_dataloader_workers, limit_batches, linreg, load_array, max_epochs,
                   mkdir_if_not_exist, resnet18, sgd, squared_loss, synthetic_data,
                   try_all_gpus, try_gpu)
from .data_hub import DATA_HUB, DATA_URL, download, download_all, download_extract  # noqa: F401
from .detection import (assign_anchor_to_bbox, box_center_to_corner,  # noqa: F401
                        box_corner_to_center, box_iou, multibox_detection, multibox_prior,
                        multibox_target, nms, offset_boxes, offset_inverse)
from .plotting import (Animator, annotate, bbox_to_rect, plot, plt, set_axes,  # noqa: F401
                       set_figsize, show_bboxes, show_heatmaps, show_images,
                       show_list_len_pair_hist, show_trace_2d, use_svg_display)
# chapter 14: word2vec data on PTB, pretrained word vectors, BERT and its WikiText-2 data
from .pretrain import (RandomGenerator, TokenEmbedding, batchify,  # noqa: F401
                       get_centers_and_contexts, get_negatives, load_data_ptb, read_ptb,
                       subsample)
from .pretrain_bert import (BERTEncoder, BERTModel, MaskLM, NextSentencePred,  # noqa: F401
                            _get_batch_loss_bert, _get_mlm_data_from_tokens, _get_next_sentence,
                            _get_nsp_data_from_paragraph, _pad_bert_inputs, _read_wiki,
                            _replace_mlm_tokens, _WikiTextDataset, get_tokens_and_segments,
                            load_data_wiki)
from .seq2seq import (AddNorm, AdditiveAttention, AttentionDecoder, Decoder,  # noqa: F401
                      DotProductAttention, Encoder, EncoderBlock, EncoderDecoder,
                      MaskedSoftmaxCELoss, MultiHeadAttention, PositionalEncoding,
                      PositionWiseFFN, Seq2SeqEncoder, TransformerEncoder, bleu,
                      masked_softmax, predict_seq2seq, sequence_mask, train_seq2seq,
                      transpose_output, transpose_qkv)
from .text import (RNNModel, RNNModelScratch, SeqDataLoader, Vocab, build_array_nmt,  # noqa: F401
                   count_corpus, grad_clipping, load_corpus_time_machine, load_data_nmt,
                   load_data_time_machine, predict_ch8, preprocess_nmt, read_data_nmt,
                   read_time_machine, seq_data_iter_random, seq_data_iter_sequential,
                   tokenize, tokenize_nmt, train_ch8, train_epoch_ch8, truncate_pad)
from .train import (get_data_ch11, get_fashion_mnist_labels, load_data_fashion_mnist,  # noqa: F401
                    predict_ch3, train_2d, train_batch_ch13, train_ch3, train_ch6, train_ch11,
                    train_ch13, train_concise_ch11, train_epoch_ch3)
# chapters 13 and 15: vision data sets, sentiment analysis and natural language inference
from .nlp_apps import (SNLIDataset, load_data_imdb, load_data_snli,  # noqa: F401
                       predict_sentiment, predict_snli, read_imdb, read_snli, split_batch)
from .vision_data import (VOC_CLASSES, VOC_COLORMAP, BananasDataset,  # noqa: F401
                          VOCSegDataset, copyfile, load_data_bananas, load_data_voc,
                          read_csv_labels, read_data_bananas, read_voc_images, reorg_test,
                          reorg_train_valid, voc_colormap2label, voc_label_indices,
                          voc_rand_crop)

# The book's framework-neutral aliases (d2l.tensor, d2l.reshape, ...), on mint.
nn_Module = _nn.Module
ones, zeros, tensor, arange = _mint.ones, _mint.zeros, _mint.tensor, _mint.arange
meshgrid, linspace, eye = _mint.meshgrid, _mint.linspace, _mint.eye
sin, sinh, cos, cosh, tanh = _mint.sin, _mint.sinh, _mint.cos, _mint.cosh, _mint.tanh
exp, log, abs = _mint.exp, _mint.log, _mint.abs  # noqa: A001
normal, rand, randn = _mint.normal, _mint.rand, _mint.randn
matmul, concat, stack = _mint.matmul, _mint.cat, _mint.stack
int32, float32 = _mint.int32, _mint.float32


def numpy(x, *args, **kwargs):
    """x as a numpy array (detached)."""
    return x.detach().numpy(*args, **kwargs)


def size(x, *args, **kwargs):
    """Number of elements."""
    return x.numel(*args, **kwargs)


def reshape(x, *args, **kwargs):
    """x.reshape(...)."""
    return x.reshape(*args, **kwargs)


def to(x, *args, **kwargs):
    """x.to(...)."""
    return x.to(*args, **kwargs)


def reduce_sum(x, *args, **kwargs):
    """x.sum(...)."""
    return x.sum(*args, **kwargs)


def reduce_mean(x, *args, **kwargs):
    """x.mean(...)."""
    return x.mean(*args, **kwargs)


def argmax(x, *args, **kwargs):
    """x.argmax(...)."""
    return x.argmax(*args, **kwargs)


def astype(x, *args, **kwargs):
    """x.type(...)."""
    return x.type(*args, **kwargs)


def transpose(x, *args, **kwargs):
    """x.t()."""
    return x.t(*args, **kwargs)


np = _np


def __getattr__(name):
    # d2l.Image is PIL.Image, imported on first use (PIL is needed only by the vision chapters)
    if name == "Image":
        from PIL import Image
        return Image
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
