"""Word-embedding pretraining data for chapter 14: the Penn Tree Bank corpus prepared for
skip-gram with negative sampling (subsampling, center/context pairs, noise words, padded
minibatches), and pretrained GloVe / fastText vectors read from the data hub.

The random draws go through Python's ``random`` module in the book's order, so seeding
``random`` gives the book's samples."""
from __future__ import annotations

import math
import os
import random
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from .. import mint
from ..utils.data import DataLoader, Dataset
from . import core, data_hub
from .text import Vocab, count_corpus


def read_ptb() -> List[List[str]]:
    """The PTB training split (``ptb/ptb.train.txt`` of the 'ptb' archive), one token list
    per line; the text's final newline gives a last, empty list, as in the book.

    Returns:
        list[list[str]]: the sentences' tokens.
    """
    path = os.path.join(data_hub.download_extract("ptb"), "ptb.train.txt")
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    return [line.split() for line in text.split("\n")]


def subsample(sentences: Sequence[Sequence[str]],
              vocab: Vocab) -> Tuple[List[List[str]], Any]:
    """Drops out-of-vocabulary tokens, then randomly discards frequent words: a token seen
    f times among N kept tokens survives with probability min(1, sqrt(1e-4 * N / f)).

    Args:
        sentences (list[list[str]]): tokenized sentences.
        vocab (Vocab): the vocabulary (tokens mapped to '<unk>' are removed).

    Returns:
        tuple[list[list[str]], collections.Counter]: the subsampled sentences and the token
        counts before subsampling (unknown tokens excluded).
    """
    known = [[t for t in line if vocab[t] != vocab.unk] for line in sentences]
    counts = count_corpus(known)
    total = sum(counts.values())
    kept = []
    for line in known:
        kept.append([t for t in line
                     if random.uniform(0, 1) < math.sqrt(1e-4 / counts[t] * total)])
    return kept, counts


def get_centers_and_contexts(corpus: Sequence[Sequence[int]],
                             max_window_size: int) -> Tuple[List[int], List[List[int]]]:
    """Skip-gram training pairs: every token of every sentence with at least two tokens is a
    center word; its context is the tokens within a window drawn uniformly from
    1..max_window_size on each side (clipped to the sentence, the center left out).

    Args:
        corpus (list[list[int]]): sentences of token indices.
        max_window_size (int): the largest context window.

    Returns:
        tuple[list[int], list[list[int]]]: the center words and their context words.
    """
    centers: List[int] = []
    contexts: List[List[int]] = []
    for line in corpus:
        n = len(line)
        if n < 2:
            continue
        centers.extend(line)
        for pos in range(n):
            w = random.randint(1, max_window_size)
            left, right = max(0, pos - w), min(n, pos + 1 + w)
            contexts.append([line[j] for j in range(left, right) if j != pos])
    return centers, contexts


class RandomGenerator:
    """Draws indices 1..n with probabilities proportional to n weights, from a buffer of
    10000 draws refilled with ``random.choices`` when used up.

    Args:
        sampling_weights (list[float]): the weights of 1, 2, ..., n.
    """

    _BUFFER = 10000

    def __init__(self, sampling_weights: Sequence[float]) -> None:
        self.population = list(range(1, len(sampling_weights) + 1))
        self.sampling_weights = sampling_weights
        self.candidates: List[int] = []
        self.i = 0

    def draw(self) -> int:
        """The next sampled index.

        Returns:
            int: a value in 1..n.
        """
        if self.i >= len(self.candidates):
            self.candidates = random.choices(self.population, self.sampling_weights,
                                             k=self._BUFFER)
            self.i = 0
        self.i += 1
        return self.candidates[self.i - 1]


def get_negatives(all_contexts: Sequence[Sequence[int]], vocab: Vocab, counter: Any,
                  K: int) -> List[List[int]]:
    """Noise words for negative sampling: K per context word, drawn with probability
    proportional to count ** 0.75 over the vocabulary's indices 1.. (never '<unk>'), and
    redrawn when they are one of the example's context words.

    Args:
        all_contexts (list[list[int]]): context words of every example.
        vocab (Vocab): the vocabulary.
        counter (collections.Counter): token counts (from ``subsample``).
        K (int): noise words per context word.

    Returns:
        list[list[int]]: the noise words of every example.
    """
    weights = [counter[vocab.to_tokens(i)] ** 0.75 for i in range(1, len(vocab))]
    gen = RandomGenerator(weights)
    out = []
    for contexts in all_contexts:
        need = len(contexts) * K
        noise: List[int] = []
        while len(noise) < need:
            w = gen.draw()
            if w not in contexts:
                noise.append(w)
        out.append(noise)
    return out


def batchify(data: Sequence[Tuple[int, Sequence[int], Sequence[int]]]) -> Tuple[Any, Any, Any, Any]:
    """Collates (center, contexts, negatives) examples into a skip-gram minibatch: each row
    holds the contexts then the noise words, zero-padded to the longest row.

    Args:
        data (list[tuple[int, list[int], list[int]]]): the examples.

    Returns:
        tuple[Tensor, Tensor, Tensor, Tensor]: int64 centers (batch, 1), contexts_negatives
        (batch, max_len), masks (1 on real entries, 0 on padding) and labels (1 on context
        words, 0 elsewhere).
    """
    width = max(len(c) + len(n) for _, c, n in data)
    centers, rows, masks, labels = [], [], [], []
    for center, contexts, negatives in data:
        used, pad = len(contexts) + len(negatives), width - len(contexts) - len(negatives)
        centers.append(center)
        rows.append(list(contexts) + list(negatives) + [0] * pad)
        masks.append([1] * used + [0] * pad)
        labels.append([1] * len(contexts) + [0] * (width - len(contexts)))
    return (mint.tensor(centers).reshape((-1, 1)), mint.tensor(rows), mint.tensor(masks),
            mint.tensor(labels))


class _SkipGramExamples(Dataset[Tuple[int, List[int], List[int]]]):
    """(center, contexts, negatives) examples, indexable for a DataLoader."""

    def __init__(self, centers: List[int], contexts: List[List[int]],
                 negatives: List[List[int]]) -> None:
        if not len(centers) == len(contexts) == len(negatives):
            raise ValueError(f"load_data_ptb: {len(centers)} centers, {len(contexts)} "
                             f"contexts and {len(negatives)} negatives differ in number")
        self.centers, self.contexts, self.negatives = centers, contexts, negatives

    def __getitem__(self, index: int) -> Tuple[int, List[int], List[int]]:
        return self.centers[index], self.contexts[index], self.negatives[index]

    def __len__(self) -> int:
        return len(self.centers)


def load_data_ptb(batch_size: int, max_window_size: int,
                  num_noise_words: int) -> Tuple[DataLoader[Any], Vocab]:
    """PTB as shuffled skip-gram minibatches (``batchify``'s four tensors) and its
    vocabulary (tokens seen at least 10 times).

    Args:
        batch_size (int): examples per batch.
        max_window_size (int): the largest context window.
        num_noise_words (int): noise words per context word.

    Returns:
        tuple[DataLoader, Vocab]: the loader and the vocabulary.
    """
    sentences = read_ptb()
    vocab = Vocab(sentences, min_freq=10)
    subsampled, counter = subsample(sentences, vocab)
    corpus = [vocab[line] for line in subsampled]
    centers, contexts = get_centers_and_contexts(corpus, max_window_size)
    negatives = get_negatives(contexts, vocab, counter, num_noise_words)
    examples = _SkipGramExamples(centers, contexts, negatives)
    loader = DataLoader(examples, batch_size, shuffle=True, collate_fn=batchify,
                        num_workers=core.get_dataloader_workers())
    return loader, vocab


class TokenEmbedding:
    """Pretrained word vectors (GloVe or fastText) of a data-hub archive holding ``vec.txt``
    (one ``token v1 v2 ...`` line per word). Index 0 is '<unk>' with a zero vector; lines
    with fewer than two numbers (fastText's "count dim" header) are skipped.

    Args:
        embedding_name (str): a DATA_HUB key, e.g. ``'glove.6b.50d'`` or ``'wiki.en'``.
    """

    def __init__(self, embedding_name: str) -> None:
        self.idx_to_token, self.idx_to_vec = self._load_embedding(embedding_name)
        self.unknown_idx = 0
        self.token_to_idx: Dict[str, int] = {t: i for i, t in enumerate(self.idx_to_token)}

    def _load_embedding(self, embedding_name: str) -> Tuple[List[str], Any]:
        tokens, vectors = ["<unk>"], []
        path = os.path.join(data_hub.download_extract(embedding_name), "vec.txt")
        with open(path, "r", encoding="utf-8") as f:
            for line in f:
                fields = line.rstrip().split(" ")
                # float32 rows as they are read: the 300-d files hold millions of words
                values = np.array([float(v) for v in fields[1:]], dtype=np.float32)
                if values.size > 1:
                    tokens.append(fields[0])
                    vectors.append(values)
        if not vectors:
            raise ValueError(f"TokenEmbedding({embedding_name!r}): {path} holds no vectors")
        table = np.zeros((len(vectors) + 1, vectors[0].size), dtype=np.float32)
        table[1:] = np.stack(vectors)
        return tokens, mint.from_numpy(table)

    def __getitem__(self, tokens: Sequence[str]) -> Any:
        """The vectors of a list of tokens (unknown tokens get the zero vector).

        Args:
            tokens (list[str]): the tokens.

        Returns:
            Tensor: (len(tokens), dim) float32.
        """
        idx = [self.token_to_idx.get(t, self.unknown_idx) for t in tokens]
        return self.idx_to_vec[mint.tensor(idx)]

    def __len__(self) -> int:
        return len(self.idx_to_token)
