"""Text for chapters 8-9: The Time Machine as a character/word corpus, the vocabulary, the
sequence iterators, the RNN training loop, and the English-French pairs for translation."""
from __future__ import annotations

import collections
import math
import random
import re
from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

from .. import mint
from ..mint import nn
from ..mint.nn import functional as F
from . import core, data_hub
from .plotting import Animator


def read_time_machine() -> List[str]:
    """The Time Machine's lines, lower-cased, with everything but letters turned to spaces.

    Returns:
        list[str]: the lines.
    """
    with open(data_hub.download("time_machine"), "r") as f:
        lines = f.readlines()
    return [re.sub("[^A-Za-z]+", " ", line).strip().lower() for line in lines]


def tokenize(lines: Sequence[str], token: str = "word") -> List[List[str]]:
    """Splits lines into word or character tokens.

    Args:
        lines (list[str]): the text.
        token (str): 'word' or 'char'. Default: ``'word'``.

    Returns:
        list[list[str]]: tokens per line.
    """
    if token == "word":
        return [line.split() for line in lines]
    if token == "char":
        return [list(line) for line in lines]
    raise ValueError(f"tokenize: unknown token type {token!r}; use 'word' or 'char'")


def count_corpus(tokens: Sequence[Any]) -> collections.Counter:
    """Token frequencies of a flat or nested token list.

    Args:
        tokens (list): tokens, or lists of tokens.

    Returns:
        collections.Counter: token -> count.
    """
    if len(tokens) == 0 or isinstance(tokens[0], list):
        tokens = [t for line in tokens for t in line]
    return collections.Counter(tokens)


class Vocab:
    """Token <-> index map: index 0 is '<unk>', then the reserved tokens, then the tokens seen
    at least ``min_freq`` times, most frequent first.

    Args:
        tokens (list, optional): tokens or lists of tokens.
        min_freq (int): minimum count kept. Default: ``0``.
        reserved_tokens (list[str], optional): tokens always present.
    """

    def __init__(self, tokens: Optional[Sequence[Any]] = None, min_freq: int = 0,
                 reserved_tokens: Optional[Sequence[str]] = None) -> None:
        counter = count_corpus(tokens or [])
        self._token_freqs = sorted(counter.items(), key=lambda kv: kv[1], reverse=True)
        self.idx_to_token = ["<unk>"] + list(reserved_tokens or [])
        self.token_to_idx = {t: i for i, t in enumerate(self.idx_to_token)}
        for tok, freq in self._token_freqs:
            if freq < min_freq:
                break
            if tok not in self.token_to_idx:
                self.token_to_idx[tok] = len(self.idx_to_token)
                self.idx_to_token.append(tok)

    def __len__(self) -> int:
        return len(self.idx_to_token)

    def __getitem__(self, tokens: Any) -> Any:
        if not isinstance(tokens, (list, tuple)):
            return self.token_to_idx.get(tokens, self.unk)
        return [self[t] for t in tokens]

    def to_tokens(self, indices: Any) -> Any:
        """Tokens of an index or a list of indices.

        Args:
            indices (int or list[int]): indices.

        Returns:
            str or list[str]: the tokens.
        """
        if not isinstance(indices, (list, tuple)):
            return self.idx_to_token[int(indices)]
        return [self.idx_to_token[int(i)] for i in indices]

    @property
    def unk(self) -> int:
        """The index of '<unk>' (0)."""
        return 0

    @property
    def token_freqs(self) -> List[Tuple[str, int]]:
        """(token, count) pairs, most frequent first."""
        return self._token_freqs


def load_corpus_time_machine(max_tokens: int = -1) -> Tuple[List[int], Vocab]:
    """The Time Machine as character indices and its vocabulary.

    Args:
        max_tokens (int): keep at most this many (-1: all). Default: ``-1``.

    Returns:
        tuple[list[int], Vocab]: the corpus and the vocabulary.
    """
    tokens = tokenize(read_time_machine(), "char")
    vocab = Vocab(tokens)
    corpus = [vocab[t] for line in tokens for t in line]
    if max_tokens > 0:
        corpus = corpus[:max_tokens]
    return corpus, vocab


def seq_data_iter_random(corpus: Sequence[int], batch_size: int, num_steps: int) -> Iterator[Tuple[Any, Any]]:
    """Minibatches of random non-overlapping subsequences (random offset, random order).

    Args:
        corpus (list[int]): token indices.
        batch_size (int): sequences per batch.
        num_steps (int): sequence length.

    Returns:
        Iterator: (X, Y) int64 (batch_size, num_steps) batches, Y shifted by one.
    """
    corpus = corpus[random.randint(0, num_steps - 1):]
    n = (len(corpus) - 1) // num_steps
    starts = list(range(0, n * num_steps, num_steps))
    random.shuffle(starts)
    for i in range(0, (n // batch_size) * batch_size, batch_size):
        chunk = starts[i:i + batch_size]
        X = [corpus[j:j + num_steps] for j in chunk]
        Y = [corpus[j + 1:j + 1 + num_steps] for j in chunk]
        yield mint.tensor(X), mint.tensor(Y)


def seq_data_iter_sequential(corpus: Sequence[int], batch_size: int, num_steps: int) -> Iterator[Tuple[Any, Any]]:
    """Minibatches whose rows continue from one batch to the next (random offset).

    Args:
        corpus (list[int]): token indices.
        batch_size (int): rows.
        num_steps (int): sequence length.

    Returns:
        Iterator: (X, Y) int64 (batch_size, num_steps) batches, Y shifted by one.
    """
    offset = random.randint(0, num_steps)
    n = ((len(corpus) - offset - 1) // batch_size) * batch_size
    Xs = mint.tensor(corpus[offset:offset + n]).reshape(batch_size, -1)
    Ys = mint.tensor(corpus[offset + 1:offset + 1 + n]).reshape(batch_size, -1)
    for i in range(0, (Xs.shape[1] // num_steps) * num_steps, num_steps):
        yield Xs[:, i:i + num_steps], Ys[:, i:i + num_steps]


class SeqDataLoader:
    """An iterable over The Time Machine's sequence batches.

    Args:
        batch_size (int): rows per batch.
        num_steps (int): sequence length.
        use_random_iter (bool): random rather than sequential partitioning.
        max_tokens (int): corpus length kept.
    """

    def __init__(self, batch_size: int, num_steps: int, use_random_iter: bool,
                 max_tokens: int) -> None:
        self.data_iter_fn = seq_data_iter_random if use_random_iter else seq_data_iter_sequential
        self.corpus, self.vocab = load_corpus_time_machine(max_tokens)
        self.batch_size, self.num_steps = batch_size, num_steps

    def __iter__(self) -> Iterator[Tuple[Any, Any]]:
        return core.limit_batches(self.data_iter_fn(self.corpus, self.batch_size, self.num_steps))


def load_data_time_machine(batch_size: int, num_steps: int, use_random_iter: bool = False,
                           max_tokens: int = 10000) -> Tuple[SeqDataLoader, Vocab]:
    """The Time Machine's sequence iterator and vocabulary.

    Args:
        batch_size (int): rows per batch.
        num_steps (int): sequence length.
        use_random_iter (bool): random partitioning. Default: ``False``.
        max_tokens (int): corpus length kept. Default: ``10000``.

    Returns:
        tuple[SeqDataLoader, Vocab]: the iterator and the vocabulary.
    """
    it = SeqDataLoader(batch_size, num_steps, use_random_iter, max_tokens)
    return it, it.vocab


class RNNModelScratch:
    """An RNN written with explicit parameters.

    Args:
        vocab_size (int): one-hot input size and output size.
        num_hiddens (int): hidden units.
        device (mint.device): where the parameters live.
        get_params (Callable): (vocab_size, num_hiddens, device) -> parameters.
        init_state (Callable): (batch_size, num_hiddens, device) -> the state tuple.
        forward_fn (Callable): (inputs, state, params) -> (outputs, state).
    """

    def __init__(self, vocab_size: int, num_hiddens: int, device: Any, get_params: Callable[..., Any],
                 init_state: Callable[..., Any], forward_fn: Callable[..., Any]) -> None:
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens, device)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X: Any, state: Any) -> Any:
        X = F.one_hot(X.T, self.vocab_size).type(mint.float32)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size: int, device: Any) -> Any:
        """The initial state.

        Args:
            batch_size (int): rows.
            device (mint.device): where.

        Returns:
            tuple[Tensor]: the state.
        """
        return self.init_state(batch_size, self.num_hiddens, device)


def predict_ch8(prefix: str, num_preds: int, net: Any, vocab: Vocab, device: Any) -> str:
    """Continues ``prefix`` by ``num_preds`` greedily predicted characters.

    Args:
        prefix (str): the start.
        num_preds (int): characters to add.
        net (Callable): the RNN.
        vocab (Vocab): the vocabulary.
        device (mint.device): where.

    Returns:
        str: prefix and prediction.
    """
    state = net.begin_state(batch_size=1, device=device)
    outputs = [vocab[prefix[0]]]

    def last():
        return mint.tensor([outputs[-1]], device=device).reshape((1, 1))
    for ch in prefix[1:]:
        _, state = net(last(), state)
        outputs.append(vocab[ch])
    for _ in range(num_preds):
        y, state = net(last(), state)
        outputs.append(int(y.argmax(dim=1).reshape(1)))
    return "".join(vocab.idx_to_token[i] for i in outputs)


def grad_clipping(net: Any, theta: float) -> None:
    """Scales the gradients so that their global L2 norm is at most ``theta``.

    Args:
        net (nn.Module or RNNModelScratch): the model.
        theta (float): the bound.

    Returns:
        None
    """
    if isinstance(net, nn.Module):
        params = [p for p in net.parameters() if p.requires_grad]
    else:
        params = net.params
    grads = [p.grad for p in params if p.grad is not None]
    norm = math.sqrt(sum(float((g * g).sum()) for g in grads))
    if norm > theta:
        with mint.no_grad():
            for g in grads:
                g *= theta / norm


def _detach_state(state: Any) -> Any:
    if isinstance(state, (tuple, list)):
        return type(state)(s.detach() for s in state)
    return state.detach()


def train_epoch_ch8(net: Any, train_iter: Iterable[Any], loss: Any, updater: Any, device: Any,
                    use_random_iter: bool) -> Tuple[float, float]:
    """One epoch of language-model training.

    Args:
        net: the RNN (Module or RNNModelScratch).
        train_iter (Iterable): (X, Y) batches.
        loss (Callable): mean cross-entropy.
        updater: a mint optimizer or f(batch_size).
        device (mint.device): where.
        use_random_iter (bool): reset the state every batch.

    Returns:
        tuple[float, float]: perplexity, tokens per second.
    """
    state, timer = None, core.Timer()
    metric = core.Accumulator(2)
    for X, Y in core.limit_batches(train_iter):
        if state is None or use_random_iter:
            state = net.begin_state(batch_size=X.shape[0], device=device)
        else:
            state = _detach_state(state)
        y = Y.T.reshape(-1)
        X, y = X.to(device), y.to(device)
        y_hat, state = net(X, state)
        l = loss(y_hat, y.long()).mean()
        if isinstance(updater, mint.optim.Optimizer):
            updater.zero_grad()
            l.backward()
            grad_clipping(net, 1)
            updater.step()
        else:
            l.backward()
            grad_clipping(net, 1)
            updater(batch_size=1)
        metric.add(float(l) * y.numel(), y.numel())
    if metric[1] == 0:
        return math.nan, 0.0
    return math.exp(metric[0] / metric[1]), metric[1] / timer.stop()


def train_ch8(net: Any, train_iter: Iterable[Any], vocab: Vocab, lr: float, num_epochs: int,
              device: Any, use_random_iter: bool = False) -> None:
    """Trains a character-level language model, plotting perplexity.

    Args:
        net: the RNN.
        train_iter (Iterable): (X, Y) batches.
        vocab (Vocab): the vocabulary.
        lr (float): learning rate.
        num_epochs (int): epochs.
        device (mint.device): where.
        use_random_iter (bool): random partitioning. Default: ``False``.

    Returns:
        None
    """
    loss = nn.CrossEntropyLoss()
    animator = Animator(xlabel="epoch", ylabel="perplexity", legend=["train"],
                        xlim=[10, num_epochs])
    if isinstance(net, nn.Module):
        updater = mint.optim.SGD(net.parameters(), lr)
    else:
        updater = lambda batch_size: core.sgd(net.params, lr, batch_size)  # noqa: E731
    ppl, speed = math.nan, 0.0
    epochs = core.max_epochs(num_epochs)
    for epoch in range(epochs):
        ppl, speed = train_epoch_ch8(net, train_iter, loss, updater, device, use_random_iter)
        # every 10 epochs, as the book plots; and the last one, so a bounded run shows a curve
        if (epoch + 1) % 10 == 0 or epoch + 1 == epochs:
            print(predict_ch8("time traveller", 50, net, vocab, device))
            animator.add(epoch + 1, [ppl])
    print(f"perplexity {ppl:.1f}, {speed:.1f} tokens/sec on {device}")
    print(predict_ch8("time traveller", 50, net, vocab, device))
    print(predict_ch8("traveller", 50, net, vocab, device))


class RNNModel(nn.Module):
    """A recurrent layer (nn.RNN/GRU/LSTM) on one-hot inputs, with a linear output layer.

    Args:
        rnn_layer (nn.Module): the recurrent layer.
        vocab_size (int): one-hot size and outputs.
    """

    def __init__(self, rnn_layer: Any, vocab_size: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.num_hiddens = self.rnn.hidden_size
        self.num_directions = 2 if getattr(self.rnn, "bidirectional", False) else 1
        self.linear = nn.Linear(self.num_hiddens * self.num_directions, self.vocab_size)

    def forward(self, inputs: Any, state: Any) -> Any:
        """(outputs (steps * batch, vocab), new state).

        Args:
            inputs (Tensor): (batch, steps) indices.
            state: the recurrent state.

        Returns:
            tuple: outputs and state.
        """
        X = F.one_hot(inputs.T.long(), self.vocab_size).type(mint.float32)
        Y, state = self.rnn(X, state)
        return self.linear(Y.reshape((-1, Y.shape[-1]))), state

    def begin_state(self, device: Any, batch_size: int = 1) -> Any:
        """Zero state: a tensor, or an (h, c) tuple for LSTM.

        Args:
            device (mint.device): where.
            batch_size (int): rows. Default: ``1``.

        Returns:
            Tensor or tuple[Tensor, Tensor]: the state.
        """
        shape = (self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens)
        if isinstance(self.rnn, nn.LSTM):
            return (mint.zeros(shape, device=device), mint.zeros(shape, device=device))
        return mint.zeros(shape, device=device)


# --- machine translation -----------------------------------------------------------------------
def read_data_nmt() -> str:
    """The English-French pairs file's text (tab-separated lines).

    Returns:
        str: the text.
    """
    import os
    d = data_hub.download_extract("fra-eng")
    with open(os.path.join(d, "fra.txt"), "r", encoding="utf-8") as f:
        return f.read()


def preprocess_nmt(text: str) -> str:
    """Lower-cases, normalizes spaces and puts a space before punctuation.

    Args:
        text (str): raw text.

    Returns:
        str: the cleaned text.
    """
    text = text.replace("\u202f", " ").replace("\xa0", " ").lower()
    out = []
    for i, ch in enumerate(text):
        if i > 0 and ch in ",.!?" and text[i - 1] != " ":
            out.append(" ")
        out.append(ch)
    return "".join(out)


def tokenize_nmt(text: str, num_examples: Optional[int] = None) -> Tuple[List[List[str]], List[List[str]]]:
    """Word tokens of the source and target sides.

    Args:
        text (str): preprocessed text.
        num_examples (int, optional): lines kept.

    Returns:
        tuple[list, list]: source tokens, target tokens.
    """
    source, target = [], []
    for i, line in enumerate(text.split("\n")):
        if num_examples and i >= num_examples:
            break
        parts = line.split("\t")
        if len(parts) >= 2:
            source.append(parts[0].split(" "))
            target.append(parts[1].split(" "))
    return source, target


def truncate_pad(line: Sequence[int], num_steps: int, padding_token: int) -> List[int]:
    """Cuts or pads a sequence to ``num_steps``.

    Args:
        line (list[int]): the sequence.
        num_steps (int): length.
        padding_token (int): the pad index.

    Returns:
        list[int]: the fixed-length sequence.
    """
    line = list(line)
    if len(line) > num_steps:
        return line[:num_steps]
    return line + [padding_token] * (num_steps - len(line))


def build_array_nmt(lines: Sequence[Sequence[str]], vocab: Vocab, num_steps: int) -> Tuple[Any, Any]:
    """Index arrays of the sentences with '<eos>' appended, and their valid lengths.

    Args:
        lines (list[list[str]]): tokenized sentences.
        vocab (Vocab): vocabulary with '<pad>' and '<eos>'.
        num_steps (int): length.

    Returns:
        tuple[Tensor, Tensor]: (n, num_steps) indices and (n,) lengths.
    """
    rows = [vocab[l] + [vocab["<eos>"]] for l in lines]
    array = mint.tensor([truncate_pad(r, num_steps, vocab["<pad>"]) for r in rows])
    valid_len = (array != vocab["<pad>"]).type(mint.int32).sum(1)
    return array, valid_len


def load_data_nmt(batch_size: int, num_steps: int, num_examples: int = 600) -> Tuple[Any, Vocab, Vocab]:
    """A loader of (X, X_valid_len, Y, Y_valid_len) batches and the two vocabularies.

    Args:
        batch_size (int): batch size.
        num_steps (int): length.
        num_examples (int): sentence pairs used. Default: ``600``.

    Returns:
        tuple[DataLoader, Vocab, Vocab]: loader, source vocab, target vocab.
    """
    text = preprocess_nmt(read_data_nmt())
    source, target = tokenize_nmt(text, num_examples)
    reserved = ["<pad>", "<bos>", "<eos>"]
    src_vocab = Vocab(source, min_freq=2, reserved_tokens=reserved)
    tgt_vocab = Vocab(target, min_freq=2, reserved_tokens=reserved)
    src, src_len = build_array_nmt(source, src_vocab, num_steps)
    tgt, tgt_len = build_array_nmt(target, tgt_vocab, num_steps)
    return core.load_array((src, src_len, tgt, tgt_len), batch_size), src_vocab, tgt_vocab
