"""Encoder-decoder models for chapters 9-10: the seq2seq RNN, masking, BLEU, attention
scoring, multi-head attention and the Transformer encoder."""
from __future__ import annotations

import collections
import math
from typing import Any, Iterable, List, Optional, Tuple

from .. import mint
from ..mint import nn
from ..mint.nn import functional as F
from . import core
from .plotting import Animator


class Encoder(nn.Module):
    """The encoder interface: forward(X, *args)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def forward(self, X: Any, *args: Any) -> Any:
        """Encodes X (implemented by subclasses).

        Args:
            X (Tensor): the input.
            *args: extra inputs.

        Returns:
            Any: the encoding.
        """
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")


class Decoder(nn.Module):
    """The decoder interface: init_state(enc_outputs, *args), forward(X, state)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def init_state(self, enc_outputs: Any, *args: Any) -> Any:
        """The decoder state from the encoder outputs (implemented by subclasses).

        Args:
            enc_outputs: the encoder's outputs.
            *args: extra inputs.

        Returns:
            Any: the state.
        """
        raise NotImplementedError(f"{type(self).__name__}.init_state is not implemented")

    def forward(self, X: Any, state: Any) -> Any:
        """Decodes X (implemented by subclasses).

        Args:
            X (Tensor): the input.
            state: the state.

        Returns:
            Any: (outputs, state).
        """
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")


class AttentionDecoder(Decoder):
    """A decoder that records its attention weights (``attention_weights``)."""

    @property
    def attention_weights(self) -> Any:
        """The attention weights of the last forward (implemented by subclasses)."""
        raise NotImplementedError(f"{type(self).__name__}.attention_weights is not implemented")


class EncoderDecoder(nn.Module):
    """An encoder and a decoder run one after the other.

    Args:
        encoder (Encoder): the encoder.
        decoder (Decoder): the decoder.
    """

    def __init__(self, encoder: Any, decoder: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.encoder, self.decoder = encoder, decoder

    def forward(self, enc_X: Any, dec_X: Any, *args: Any) -> Any:
        """decoder(dec_X, init_state(encoder(enc_X))).

        Args:
            enc_X (Tensor): encoder input.
            dec_X (Tensor): decoder input.
            *args: extra inputs for both.

        Returns:
            Any: the decoder's (outputs, state).
        """
        enc_outputs = self.encoder(enc_X, *args)
        return self.decoder(dec_X, self.decoder.init_state(enc_outputs, *args))


class Seq2SeqEncoder(Encoder):
    """Embedding then a multi-layer GRU.

    Args:
        vocab_size (int): source vocabulary size.
        embed_size (int): embedding size.
        num_hiddens (int): GRU hidden size.
        num_layers (int): GRU layers.
        dropout (float): GRU dropout. Default: ``0``.
    """

    def __init__(self, vocab_size: int, embed_size: int, num_hiddens: int, num_layers: int,
                 dropout: float = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)

    def forward(self, X: Any, *args: Any) -> Any:
        """(outputs (steps, batch, hiddens), state (layers, batch, hiddens)).

        Args:
            X (Tensor): (batch, steps) indices.
            *args: ignored.

        Returns:
            tuple[Tensor, Tensor]: outputs and state.
        """
        X = self.embedding(X).permute(1, 0, 2)
        return self.rnn(X)


def sequence_mask(X: Any, valid_len: Any, value: float = 0) -> Any:
    """Sets the entries of each row of X past its valid length to ``value``.

    Args:
        X (Tensor): (n, steps, ...) values.
        valid_len (Tensor): (n,) lengths.
        value (float): the fill value. Default: ``0``.

    Returns:
        Tensor: X, modified in place.
    """
    maxlen = X.shape[1]
    mask = mint.arange(maxlen, dtype=mint.float32)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


class MaskedSoftmaxCELoss(nn.CrossEntropyLoss):
    """Cross-entropy averaged over the valid steps of each sequence."""

    def forward(self, pred: Any, label: Any, valid_len: Any) -> Any:
        """Per-sequence mean loss over valid steps.

        Args:
            pred (Tensor): (batch, steps, vocab) scores.
            label (Tensor): (batch, steps) indices.
            valid_len (Tensor): (batch,) lengths.

        Returns:
            Tensor: (batch,) losses.
        """
        weights = sequence_mask(mint.ones_like(label, dtype=mint.float32), valid_len)
        unweighted = F.cross_entropy(pred.permute(0, 2, 1), label, reduction="none")
        return (unweighted * weights).mean(dim=1)


def train_seq2seq(net: Any, data_iter: Iterable[Any], lr: float, num_epochs: int, tgt_vocab: Any,
                  device: Any) -> None:
    """Trains an encoder-decoder with teacher forcing (Adam, gradient clipping at 1).

    Args:
        net (EncoderDecoder): the model.
        data_iter (Iterable): (X, X_len, Y, Y_len) batches.
        lr (float): learning rate.
        num_epochs (int): epochs.
        tgt_vocab: target vocabulary (with '<bos>').
        device (mint.device): where.

    Returns:
        None
    """
    from .text import grad_clipping

    def xavier(m):
        if type(m) == nn.Linear:  # noqa: E721
            nn.init.xavier_uniform_(m.weight)
        if type(m) == nn.GRU:  # noqa: E721
            for name, p in m.named_parameters():
                if "weight" in name:
                    nn.init.xavier_uniform_(p)
    net.apply(xavier)
    net.to(device)
    optimizer = mint.optim.Adam(net.parameters(), lr=lr)
    loss = MaskedSoftmaxCELoss()
    net.train()
    animator = Animator(xlabel="epoch", ylabel="loss", xlim=[10, num_epochs])
    metric, timer = core.Accumulator(2), core.Timer()
    epochs = core.max_epochs(num_epochs)
    for epoch in range(epochs):
        timer.start()
        metric.reset()
        for batch in core.limit_batches(data_iter):
            optimizer.zero_grad()
            X, X_valid_len, Y, Y_valid_len = [x.to(device) for x in batch]
            bos = mint.tensor([tgt_vocab["<bos>"]] * Y.shape[0], device=device).reshape(-1, 1)
            dec_input = mint.cat([bos, Y[:, :-1]], 1)
            Y_hat, _ = net(X, dec_input, X_valid_len)
            l = loss(Y_hat, Y, Y_valid_len)
            l.sum().backward()
            grad_clipping(net, 1)
            optimizer.step()
            with mint.no_grad():
                metric.add(float(l.sum()), float(Y_valid_len.sum()))
        timer.stop()
        # every 10 epochs, as the book plots; and the last one, so a bounded run shows a curve
        if (epoch + 1) % 10 == 0 or epoch + 1 == epochs:
            animator.add(epoch + 1, (metric[0] / metric[1],))
    if metric[1]:
        print(f"loss {metric[0] / metric[1]:.3f}, {metric[1] / timer.sum():.1f} "
              f"tokens/sec on {device}")


def predict_seq2seq(net: Any, src_sentence: str, src_vocab: Any, tgt_vocab: Any, num_steps: int,
                    device: Any, save_attention_weights: bool = False) -> Tuple[str, List[Any]]:
    """Greedy translation of one sentence.

    Args:
        net (EncoderDecoder): the model.
        src_sentence (str): the source sentence (space-separated tokens).
        src_vocab: source vocabulary.
        tgt_vocab: target vocabulary.
        num_steps (int): maximum output length.
        device (mint.device): where.
        save_attention_weights (bool): collect the decoder's attention weights.

    Returns:
        tuple[str, list]: the translation and the attention weights per step.
    """
    from .text import truncate_pad
    net.eval()
    src_tokens = src_vocab[src_sentence.lower().split(" ")] + [src_vocab["<eos>"]]
    enc_valid_len = mint.tensor([len(src_tokens)], device=device)
    src_tokens = truncate_pad(src_tokens, num_steps, src_vocab["<pad>"])
    enc_X = mint.unsqueeze(mint.tensor(src_tokens, dtype=mint.long, device=device), dim=0)
    enc_outputs = net.encoder(enc_X, enc_valid_len)
    dec_state = net.decoder.init_state(enc_outputs, enc_valid_len)
    dec_X = mint.unsqueeze(mint.tensor([tgt_vocab["<bos>"]], dtype=mint.long, device=device),
                           dim=0)
    output_seq, attention_weight_seq = [], []
    for _ in range(num_steps):
        Y, dec_state = net.decoder(dec_X, dec_state)
        dec_X = Y.argmax(dim=2)
        pred = int(dec_X.squeeze(dim=0).type(mint.int32).item())
        if save_attention_weights:
            attention_weight_seq.append(net.decoder.attention_weights)
        if pred == tgt_vocab["<eos>"]:
            break
        output_seq.append(pred)
    return " ".join(tgt_vocab.to_tokens(output_seq)), attention_weight_seq


def bleu(pred_seq: str, label_seq: str, k: int) -> float:
    """BLEU of a prediction against one reference, n-grams up to ``k``.

    Args:
        pred_seq (str): the prediction.
        label_seq (str): the reference.
        k (int): the largest n-gram.

    Returns:
        float: the score in [0, 1].
    """
    p, l = pred_seq.split(" "), label_seq.split(" ")
    score = math.exp(min(0.0, 1 - len(l) / len(p)))
    for n in range(1, k + 1):
        refs = collections.Counter(tuple(l[i:i + n]) for i in range(len(l) - n + 1))
        hits = 0
        for i in range(len(p) - n + 1):
            g = tuple(p[i:i + n])
            if refs[g] > 0:
                hits += 1
                refs[g] -= 1
        total = len(p) - n + 1
        score *= math.pow(hits / total if total > 0 else 0.0, math.pow(0.5, n))
    return score


def masked_softmax(X: Any, valid_lens: Any) -> Any:
    """Softmax over the last axis with entries past the valid lengths masked out.

    Args:
        X (Tensor): (batch, queries, keys) scores.
        valid_lens (Tensor, optional): (batch,) or (batch, queries) lengths.

    Returns:
        Tensor: the weights.
    """
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = mint.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
    return F.softmax(X.reshape(shape), dim=-1)


class AdditiveAttention(nn.Module):
    """Additive (Bahdanau) attention scoring.

    Args:
        key_size (int): key features.
        query_size (int): query features.
        num_hiddens (int): hidden units.
        dropout (float): dropout on the weights.
    """

    def __init__(self, key_size: int, query_size: int, num_hiddens: int, dropout: float,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.W_k = nn.Linear(key_size, num_hiddens, bias=False)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries: Any, keys: Any, values: Any, valid_lens: Any) -> Any:
        """Attention-weighted values.

        Args:
            queries (Tensor): (batch, q, query_size).
            keys (Tensor): (batch, k, key_size).
            values (Tensor): (batch, k, v).
            valid_lens (Tensor, optional): valid key counts.

        Returns:
            Tensor: (batch, q, v).
        """
        q, k = self.W_q(queries), self.W_k(keys)
        features = mint.tanh(q.unsqueeze(2) + k.unsqueeze(1))
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return mint.bmm(self.dropout(self.attention_weights), values)


class DotProductAttention(nn.Module):
    """Scaled dot-product attention.

    Args:
        dropout (float): dropout on the weights.
    """

    def __init__(self, dropout: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries: Any, keys: Any, values: Any, valid_lens: Any = None) -> Any:
        """softmax(QK^T / sqrt(d)) V with masking.

        Args:
            queries (Tensor): (batch, q, d).
            keys (Tensor): (batch, k, d).
            values (Tensor): (batch, k, v).
            valid_lens (Tensor, optional): valid key counts.

        Returns:
            Tensor: (batch, q, v).
        """
        d = queries.shape[-1]
        scores = mint.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return mint.bmm(self.dropout(self.attention_weights), values)


def transpose_qkv(X: Any, num_heads: int) -> Any:
    """(batch, n, hiddens) -> (batch * heads, n, hiddens / heads).

    Args:
        X (Tensor): the projections.
        num_heads (int): heads.

    Returns:
        Tensor: the per-head layout.
    """
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1).permute(0, 2, 1, 3)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X: Any, num_heads: int) -> Any:
    """Undoes transpose_qkv.

    Args:
        X (Tensor): (batch * heads, n, d).
        num_heads (int): heads.

    Returns:
        Tensor: (batch, n, heads * d).
    """
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2]).permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


class MultiHeadAttention(nn.Module):
    """Multi-head scaled dot-product attention.

    Args:
        key_size (int): key features.
        query_size (int): query features.
        value_size (int): value features.
        num_hiddens (int): output features (split over heads).
        num_heads (int): heads.
        dropout (float): dropout on the weights.
        bias (bool): biases on the projections. Default: ``False``.
    """

    def __init__(self, key_size: int, query_size: int, value_size: int, num_hiddens: int,
                 num_heads: int, dropout: float, bias: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=bias)
        self.W_k = nn.Linear(key_size, num_hiddens, bias=bias)
        self.W_v = nn.Linear(value_size, num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)

    def forward(self, queries: Any, keys: Any, values: Any, valid_lens: Any) -> Any:
        """Multi-head attention output.

        Args:
            queries (Tensor): (batch, q, query_size).
            keys (Tensor): (batch, k, key_size).
            values (Tensor): (batch, k, value_size).
            valid_lens (Tensor, optional): valid key counts.

        Returns:
            Tensor: (batch, q, num_hiddens).
        """
        q = transpose_qkv(self.W_q(queries), self.num_heads)
        k = transpose_qkv(self.W_k(keys), self.num_heads)
        v = transpose_qkv(self.W_v(values), self.num_heads)
        if valid_lens is not None:
            valid_lens = mint.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
        out = self.attention(q, k, v, valid_lens)
        return self.W_o(transpose_output(out, self.num_heads))


class PositionalEncoding(nn.Module):
    """Adds sine/cosine position encodings, then dropout.

    Args:
        num_hiddens (int): features.
        dropout (float): dropout.
        max_len (int): longest sequence. Default: ``1000``.
    """

    def __init__(self, num_hiddens: int, dropout: float, max_len: int = 1000) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pos = mint.arange(max_len, dtype=mint.float32).reshape(-1, 1)
        freq = mint.pow(10000, mint.arange(0, num_hiddens, 2, dtype=mint.float32) / num_hiddens)
        angles = pos / freq
        P = mint.zeros((1, max_len, num_hiddens))
        P[:, :, 0::2] = mint.sin(angles)
        P[:, :, 1::2] = mint.cos(angles)
        self.P = P

    def forward(self, X: Any) -> Any:
        """dropout(X + P[:steps]).

        Args:
            X (Tensor): (batch, steps, num_hiddens).

        Returns:
            Tensor: the encoded input.
        """
        return self.dropout(X + self.P[:, :X.shape[1], :].to(X.device))


class PositionWiseFFN(nn.Module):
    """Two dense layers with ReLU, applied at every position.

    Args:
        ffn_num_input (int): input features.
        ffn_num_hiddens (int): hidden features.
        ffn_num_outputs (int): output features.
    """

    def __init__(self, ffn_num_input: int, ffn_num_hiddens: int, ffn_num_outputs: int,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dense1 = nn.Linear(ffn_num_input, ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.Linear(ffn_num_hiddens, ffn_num_outputs)

    def forward(self, X: Any) -> Any:
        """dense2(relu(dense1(X))).

        Args:
            X (Tensor): (..., ffn_num_input).

        Returns:
            Tensor: (..., ffn_num_outputs).
        """
        return self.dense2(self.relu(self.dense1(X)))


class AddNorm(nn.Module):
    """Residual connection then layer norm: LayerNorm(dropout(Y) + X).

    Args:
        normalized_shape: LayerNorm's shape.
        dropout (float): dropout on Y.
    """

    def __init__(self, normalized_shape: Any, dropout: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, X: Any, Y: Any) -> Any:
        """LayerNorm(dropout(Y) + X).

        Args:
            X (Tensor): the residual.
            Y (Tensor): the sub-layer output.

        Returns:
            Tensor: the normalized sum.
        """
        return self.ln(self.dropout(Y) + X)


class EncoderBlock(nn.Module):
    """One Transformer encoder block: self-attention and a position-wise FFN, each with AddNorm.

    Args:
        key_size (int): key features.
        query_size (int): query features.
        value_size (int): value features.
        num_hiddens (int): model width.
        norm_shape: LayerNorm shape.
        ffn_num_input (int): FFN input.
        ffn_num_hiddens (int): FFN hidden.
        num_heads (int): heads.
        dropout (float): dropout.
        use_bias (bool): projection biases. Default: ``False``.
    """

    def __init__(self, key_size: int, query_size: int, value_size: int, num_hiddens: int,
                 norm_shape: Any, ffn_num_input: int, ffn_num_hiddens: int, num_heads: int,
                 dropout: float, use_bias: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.attention = MultiHeadAttention(key_size, query_size, value_size, num_hiddens,
                                            num_heads, dropout, use_bias)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm2 = AddNorm(norm_shape, dropout)

    def forward(self, X: Any, valid_lens: Any) -> Any:
        """The block's output.

        Args:
            X (Tensor): (batch, steps, num_hiddens).
            valid_lens (Tensor, optional): valid lengths.

        Returns:
            Tensor: same shape as X.
        """
        Y = self.addnorm1(X, self.attention(X, X, X, valid_lens))
        return self.addnorm2(Y, self.ffn(Y))


class TransformerEncoder(Encoder):
    """Embedding, positional encoding and ``num_layers`` EncoderBlocks.

    Args:
        vocab_size (int): vocabulary size.
        key_size (int): key features.
        query_size (int): query features.
        value_size (int): value features.
        num_hiddens (int): model width.
        norm_shape: LayerNorm shape.
        ffn_num_input (int): FFN input.
        ffn_num_hiddens (int): FFN hidden.
        num_heads (int): heads.
        num_layers (int): blocks.
        dropout (float): dropout.
        use_bias (bool): projection biases. Default: ``False``.
    """

    def __init__(self, vocab_size: int, key_size: int, query_size: int, value_size: int,
                 num_hiddens: int, norm_shape: Any, ffn_num_input: int, ffn_num_hiddens: int,
                 num_heads: int, num_layers: int, dropout: float, use_bias: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_hiddens = num_hiddens
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module(f"block{i}", EncoderBlock(
                key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
                ffn_num_hiddens, num_heads, dropout, use_bias))

    def forward(self, X: Any, valid_lens: Any, *args: Any) -> Any:
        """The encoded sequence (attention weights kept per block).

        Args:
            X (Tensor): (batch, steps) indices.
            valid_lens (Tensor, optional): valid lengths.
            *args: ignored.

        Returns:
            Tensor: (batch, steps, num_hiddens).
        """
        X = self.pos_encoding(self.embedding(X) * math.sqrt(self.num_hiddens))
        self.attention_weights: List[Optional[Any]] = [None] * len(self.blks)
        for i, blk in enumerate(self.blks):
            X = blk(X, valid_lens)
            self.attention_weights[i] = blk.attention.attention.attention_weights
        return X
