"""Data and prediction helpers of chapter 15 (NLP applications): the IMDb reviews for
sentiment analysis, the Stanford NLI corpus, and the multi-device batch split of chapter 12.

The archives come from the offline data hub (``aclImdb_v1.tar.gz``, ``snli_1.0.zip``);
review and sentence files are read as UTF-8 and listed in sorted order, so a data set loads
the same way on every machine."""
from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence, Tuple

from .. import mint
from ..utils.data import DataLoader, Dataset
from . import core, data_hub
from .text import Vocab, tokenize, truncate_pad

# gold label -> class index, in the book's order
SNLI_LABELS = {"entailment": 0, "contradiction": 1, "neutral": 2}


# --- sentiment analysis (IMDb) -----------------------------------------------------------------
def read_imdb(data_dir: str, is_train: bool) -> Tuple[List[str], List[int]]:
    """The reviews of the IMDb train or test split and their sentiment.

    Positive reviews (``<split>/pos``) come first, then negative ones (``<split>/neg``); the
    line breaks inside a review are dropped.

    Args:
        data_dir (str): the extracted ``aclImdb`` folder.
        is_train (bool): the train split, else the test split.

    Returns:
        tuple[list[str], list[int]]: the reviews, and 1 (positive) or 0 (negative) for each.

    Raises:
        FileNotFoundError: a ``pos``/``neg`` folder is missing.
    """
    split = "train" if is_train else "test"
    reviews: List[str] = []
    labels: List[int] = []
    for polarity, label in (("pos", 1), ("neg", 0)):
        folder = os.path.join(data_dir, split, polarity)
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"read_imdb: no folder {folder} (is {data_dir} the "
                                    f"extracted aclImdb data set?)")
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                reviews.append(f.read().decode("utf-8").replace("\n", ""))
            labels.append(label)
    return reviews, labels


def _index_rows(token_lines: Sequence[Sequence[str]], vocab: Vocab, num_steps: int) -> Any:
    pad = vocab["<pad>"]
    return mint.tensor([truncate_pad(vocab[list(line)], num_steps, pad) for line in token_lines],
                       dtype=mint.int64)


def load_data_imdb(batch_size: int, num_steps: int = 500) -> Tuple[DataLoader, DataLoader, Vocab]:
    """IMDb loaders of (reviews, labels) batches and the vocabulary of the training reviews.

    Reviews are split into words, mapped through a vocabulary of the training words seen at
    least 5 times, then cut or padded to ``num_steps`` indices. The vocabulary reserves no
    '<pad>' token, so (as in the book) padding uses the index of '<unk>', 0.

    Args:
        batch_size (int): reviews per batch.
        num_steps (int): review length in tokens. Default: ``500``.

    Returns:
        tuple[DataLoader, DataLoader, Vocab]: the shuffled train loader and the test loader,
        both of (int64 (B, num_steps), int64 (B,)) batches, and the vocabulary.
    """
    data_dir = data_hub.download_extract("aclImdb", "aclImdb")
    train_text, train_y = read_imdb(data_dir, True)
    test_text, test_y = read_imdb(data_dir, False)
    train_tokens = tokenize(train_text, token="word")
    test_tokens = tokenize(test_text, token="word")
    vocab = Vocab(train_tokens, min_freq=5)
    train_X = _index_rows(train_tokens, vocab, num_steps)
    test_X = _index_rows(test_tokens, vocab, num_steps)
    train_iter = core.load_array((train_X, mint.tensor(train_y, dtype=mint.int64)), batch_size)
    test_iter = core.load_array((test_X, mint.tensor(test_y, dtype=mint.int64)), batch_size,
                                is_train=False)
    return train_iter, test_iter, vocab


def predict_sentiment(net: Any, vocab: Vocab, sequence: str) -> str:
    """The sentiment a classifier predicts for one sentence.

    Args:
        net (Callable): maps (1, T) token indices to (1, 2) scores (class 1 = positive).
        vocab (Vocab): the vocabulary the net was trained with.
        sequence (str): a sentence; split on whitespace.

    Returns:
        str: 'positive' or 'negative'.
    """
    tokens = mint.tensor(vocab[sequence.split()], device=core.try_gpu())
    scores = net(tokens.reshape(1, -1))
    return "positive" if int(mint.argmax(scores, dim=1).reshape(-1)[0]) == 1 else "negative"


# --- natural language inference (SNLI) ---------------------------------------------------------
def _snli_sentence(parse: str) -> str:
    # a binary-parse column with its brackets removed and its whitespace runs collapsed
    return " ".join(parse.replace("(", "").replace(")", "").split())


def read_snli(data_dir: str, is_train: bool) -> Tuple[List[str], List[str], List[int]]:
    """Premises, hypotheses and labels of the SNLI train or test split.

    Reads ``snli_1.0_train.txt`` / ``snli_1.0_test.txt`` (tab-separated, one header line):
    the gold label is column 0, the premise's and hypothesis's binary parses columns 1 and
    2. Parentheses are removed from the parses; rows whose gold label is not entailment,
    contradiction or neutral (the annotators' no-consensus '-') are skipped.

    Args:
        data_dir (str): the extracted ``snli_1.0`` folder.
        is_train (bool): the train split, else the test split.

    Returns:
        tuple[list[str], list[str], list[int]]: premises, hypotheses, and labels
        (0 entailment, 1 contradiction, 2 neutral).
    """
    fname = os.path.join(data_dir, "snli_1.0_train.txt" if is_train else "snli_1.0_test.txt")
    premises: List[str] = []
    hypotheses: List[str] = []
    labels: List[int] = []
    with open(fname, "r", encoding="utf-8") as f:
        next(f, None)  # the column names
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if cols[0] not in SNLI_LABELS or len(cols) < 3:
                continue
            premises.append(_snli_sentence(cols[1]))
            hypotheses.append(_snli_sentence(cols[2]))
            labels.append(SNLI_LABELS[cols[0]])
    return premises, hypotheses, labels


class SNLIDataset(Dataset):
    """SNLI pairs as fixed-length index tensors: item i is ((premise, hypothesis), label).

    Args:
        dataset (tuple): (premises, hypotheses, labels) as ``read_snli`` returns them.
        num_steps (int): length each sentence is cut or padded to.
        vocab (Vocab, optional): the vocabulary; ``None`` builds one from these sentences
            (words seen at least 5 times, '<pad>' reserved). Default: ``None``.
    """

    def __init__(self, dataset: Tuple[Sequence[str], Sequence[str], Sequence[int]],
                 num_steps: int, vocab: Optional[Vocab] = None) -> None:
        self.num_steps = num_steps
        premise_tokens = tokenize(dataset[0])
        hypothesis_tokens = tokenize(dataset[1])
        self.vocab = vocab if vocab is not None else Vocab(
            premise_tokens + hypothesis_tokens, min_freq=5, reserved_tokens=["<pad>"])
        self.premises = self._pad(premise_tokens)
        self.hypotheses = self._pad(hypothesis_tokens)
        self.labels = mint.tensor(list(dataset[2]), dtype=mint.int64)
        print(f"read {len(self.premises)} examples")

    def _pad(self, lines: Sequence[Sequence[str]]) -> Any:
        if not lines:
            return mint.zeros((0, self.num_steps), dtype=mint.int64)
        return _index_rows(lines, self.vocab, self.num_steps)

    def __getitem__(self, idx: int) -> Tuple[Tuple[Any, Any], Any]:
        return (self.premises[idx], self.hypotheses[idx]), self.labels[idx]

    def __len__(self) -> int:
        return len(self.premises)


def load_data_snli(batch_size: int, num_steps: int = 50) -> Tuple[DataLoader, DataLoader, Vocab]:
    """SNLI loaders and the vocabulary of the training sentences.

    Args:
        batch_size (int): pairs per batch.
        num_steps (int): sentence length in tokens. Default: ``50``.

    Returns:
        tuple[DataLoader, DataLoader, Vocab]: the shuffled train loader and the test loader,
        whose batches are ``[[premises, hypotheses], labels]`` (int64 (B, num_steps) and
        (B,)), and the vocabulary.
    """
    data_dir = data_hub.download_extract("SNLI")
    train_set = SNLIDataset(read_snli(data_dir, True), num_steps)
    test_set = SNLIDataset(read_snli(data_dir, False), num_steps, train_set.vocab)
    train_iter = DataLoader(train_set, batch_size, shuffle=True)
    test_iter = DataLoader(test_set, batch_size, shuffle=False)
    return train_iter, test_iter, train_set.vocab


def predict_snli(net: Any, vocab: Vocab, premise: Sequence[str],
                 hypothesis: Sequence[str]) -> str:
    """The relation an NLI model predicts between two tokenized sentences.

    Args:
        net (nn.Module): maps [premises, hypotheses] ((1, T) indices each) to (1, 3) scores;
            put in eval mode.
        vocab (Vocab): the vocabulary the net was trained with.
        premise (list[str]): the premise's tokens.
        hypothesis (list[str]): the hypothesis's tokens.

    Returns:
        str: 'entailment', 'contradiction' or 'neutral'.
    """
    net.eval()
    device = core.try_gpu()
    p = mint.tensor(vocab[list(premise)], device=device).reshape((1, -1))
    h = mint.tensor(vocab[list(hypothesis)], device=device).reshape((1, -1))
    label = int(mint.argmax(net([p, h]), dim=1).reshape(-1)[0])
    return list(SNLI_LABELS)[label]


# --- chapter 12: splitting a batch over devices -------------------------------------------------
def split_batch(X: Any, y: Any, devices: Sequence[Any]) -> Tuple[List[Any], List[Any]]:
    """Splits a batch into one contiguous slice per device (as nn.parallel.scatter does:
    equal slices of ceil(n / len(devices)) rows, the last one shorter).

    Args:
        X (Tensor): the inputs, (n, ...).
        y (Tensor): the labels, (n, ...).
        devices (list[mint.device]): where the slices go.

    Returns:
        tuple[list[Tensor], list[Tensor]]: the X slices and the y slices, slice k on
        devices[k].

    Raises:
        ValueError: X and y have different numbers of rows, or no device is given.
    """
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"split_batch: X has {X.shape[0]} rows but y has {y.shape[0]}")
    if not devices:
        raise ValueError("split_batch: no devices given")
    n = len(devices)
    xs, ys = mint.chunk(X, n, dim=0), mint.chunk(y, n, dim=0)
    return ([x.to(d) for x, d in zip(xs, devices)], [t.to(d) for t, d in zip(ys, devices)])
