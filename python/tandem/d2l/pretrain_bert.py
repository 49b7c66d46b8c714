"""BERT for chapter 14: the input representation, the encoder with its masked-language-model
and next-sentence heads, the WikiText-2 pretraining examples, and the pretraining loss.

Module and attribute names follow the book's, so the book's saved parameters
(``state_dict`` keys such as ``encoder.blks.0.attention.W_q.weight``) load unchanged. The
example generation draws from Python's ``random`` module in the book's order."""
from __future__ import annotations

import os
import random
from typing import Any, List, Optional, Sequence, Tuple

from .. import mint
from ..mint import nn
from ..utils.data import DataLoader, Dataset
from . import core, data_hub
from .seq2seq import EncoderBlock
from .text import Vocab, tokenize

_SPECIAL = ("<cls>", "<sep>")


def get_tokens_and_segments(tokens_a: List[str],
                            tokens_b: Optional[List[str]] = None) -> Tuple[List[str], List[int]]:
    """BERT's input for one text or a text pair: '<cls>' A '<sep>' [B '<sep>'], with segment
    id 0 on '<cls>', A and its '<sep>', and 1 on B and its '<sep>'.

    Args:
        tokens_a (list[str]): the first text.
        tokens_b (list[str], optional): the second text.

    Returns:
        tuple[list[str], list[int]]: the tokens and their segment ids.
    """
    tokens = ["<cls>", *tokens_a, "<sep>"]
    segments = [0] * len(tokens)
    if tokens_b is not None:
        tokens += [*tokens_b, "<sep>"]
        segments += [1] * (len(tokens_b) + 1)
    return tokens, segments


class BERTEncoder(nn.Module):
    """Token + segment + learned position embeddings, then ``num_layers`` Transformer
    EncoderBlocks (with projection biases). As in the book, the position embedding is added
    through ``.data``, so back-propagation leaves it at its random initial value.

    Args:
        vocab_size (int): vocabulary size.
        num_hiddens (int): model width.
        norm_shape: LayerNorm shape.
        ffn_num_input (int): FFN input features.
        ffn_num_hiddens (int): FFN hidden features.
        num_heads (int): attention heads.
        num_layers (int): encoder blocks.
        dropout (float): dropout.
        max_len (int): longest sequence. Default: ``1000``.
        key_size (int): key features. Default: ``768``.
        query_size (int): query features. Default: ``768``.
        value_size (int): value features. Default: ``768``.
    """

    def __init__(self, vocab_size: int, num_hiddens: int, norm_shape: Any, ffn_num_input: int,
                 ffn_num_hiddens: int, num_heads: int, num_layers: int, dropout: float,
                 max_len: int = 1000, key_size: int = 768, query_size: int = 768,
                 value_size: int = 768, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.token_embedding = nn.Embedding(vocab_size, num_hiddens)
        self.segment_embedding = nn.Embedding(2, num_hiddens)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module(str(i), EncoderBlock(
                key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
                ffn_num_hiddens, num_heads, dropout, True))
        self.pos_embedding = nn.Parameter(mint.randn(1, max_len, num_hiddens))

    def forward(self, tokens: Any, segments: Any, valid_lens: Any) -> Any:
        """The encoded sequence.

        Args:
            tokens (Tensor): (batch, steps) token indices.
            segments (Tensor): (batch, steps) segment ids (0 or 1).
            valid_lens (Tensor, optional): (batch,) lengths without padding.

        Returns:
            Tensor: (batch, steps, num_hiddens).
        """
        steps = tokens.shape[1]
        X = self.token_embedding(tokens) + self.segment_embedding(segments)
        X = X + self.pos_embedding.data[:, :steps, :]
        for blk in self.blks:
            X = blk(X, valid_lens)
        return X


class MaskLM(nn.Module):
    """The masked-language-model head: an MLP (Linear, ReLU, LayerNorm, Linear) applied to
    the encodings at the positions to predict.

    Args:
        vocab_size (int): the output classes.
        num_hiddens (int): the MLP's hidden width.
        num_inputs (int): the encoding width. Default: ``768``.
    """

    def __init__(self, vocab_size: int, num_hiddens: int, num_inputs: int = 768,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mlp = nn.Sequential(nn.Linear(num_inputs, num_hiddens), nn.ReLU(),
                                 nn.LayerNorm(num_hiddens), nn.Linear(num_hiddens, vocab_size))

    def forward(self, X: Any, pred_positions: Any) -> Any:
        """Token scores at the given positions of every sequence.

        Args:
            X (Tensor): (batch, steps, num_inputs) encodings.
            pred_positions (Tensor): (batch, num_preds) positions in each sequence.

        Returns:
            Tensor: (batch, num_preds, vocab_size) scores.
        """
        batch, num_preds = X.shape[0], pred_positions.shape[1]
        rows = mint.repeat_interleave(mint.arange(0, batch, device=X.device), num_preds)
        picked = X[rows, pred_positions.reshape(-1)]
        return self.mlp(picked.reshape((batch, num_preds, -1)))


class NextSentencePred(nn.Module):
    """The next-sentence-prediction head: a linear layer to two classes.

    Args:
        num_inputs (int): input features.
    """

    def __init__(self, num_inputs: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.output = nn.Linear(num_inputs, 2)

    def forward(self, X: Any) -> Any:
        """The two class scores.

        Args:
            X (Tensor): (batch, num_inputs).

        Returns:
            Tensor: (batch, 2).
        """
        return self.output(X)


class BERTModel(nn.Module):
    """BERTEncoder with the two pretraining heads: MaskLM on the predicted positions and
    NextSentencePred on a tanh layer over the '<cls>' (first) encoding.

    Args:
        vocab_size (int): vocabulary size.
        num_hiddens (int): model width.
        norm_shape: LayerNorm shape.
        ffn_num_input (int): FFN input features.
        ffn_num_hiddens (int): FFN hidden features.
        num_heads (int): attention heads.
        num_layers (int): encoder blocks.
        dropout (float): dropout.
        max_len (int): longest sequence. Default: ``1000``.
        key_size (int): key features. Default: ``768``.
        query_size (int): query features. Default: ``768``.
        value_size (int): value features. Default: ``768``.
        hid_in_features (int): input of the '<cls>' hidden layer. Default: ``768``.
        mlm_in_features (int): input of the MLM head. Default: ``768``.
        nsp_in_features (int): input of the NSP head. Default: ``768``.
    """

    def __init__(self, vocab_size: int, num_hiddens: int, norm_shape: Any, ffn_num_input: int,
                 ffn_num_hiddens: int, num_heads: int, num_layers: int, dropout: float,
                 max_len: int = 1000, key_size: int = 768, query_size: int = 768,
                 value_size: int = 768, hid_in_features: int = 768,
                 mlm_in_features: int = 768, nsp_in_features: int = 768) -> None:
        super().__init__()
        self.encoder = BERTEncoder(vocab_size, num_hiddens, norm_shape, ffn_num_input,
                                   ffn_num_hiddens, num_heads, num_layers, dropout,
                                   max_len=max_len, key_size=key_size, query_size=query_size,
                                   value_size=value_size)
        self.hidden = nn.Sequential(nn.Linear(hid_in_features, num_hiddens), nn.Tanh())
        self.mlm = MaskLM(vocab_size, num_hiddens, mlm_in_features)
        self.nsp = NextSentencePred(nsp_in_features)

    def forward(self, tokens: Any, segments: Any, valid_lens: Any = None,
                pred_positions: Any = None) -> Tuple[Any, Any, Any]:
        """Encodings, MLM scores (None without ``pred_positions``) and NSP scores.

        Args:
            tokens (Tensor): (batch, steps) token indices.
            segments (Tensor): (batch, steps) segment ids.
            valid_lens (Tensor, optional): (batch,) lengths without padding.
            pred_positions (Tensor, optional): (batch, num_preds) positions for the MLM head.

        Returns:
            tuple[Tensor, Tensor or None, Tensor]: (batch, steps, num_hiddens),
            (batch, num_preds, vocab_size) and (batch, 2).
        """
        encoded = self.encoder(tokens, segments, valid_lens)
        mlm_scores = None if pred_positions is None else self.mlm(encoded, pred_positions)
        nsp_scores = self.nsp(self.hidden(encoded[:, 0, :]))
        return encoded, mlm_scores, nsp_scores


# --- WikiText-2 pretraining examples ------------------------------------------------------------
def _read_wiki(data_dir: str) -> List[List[str]]:
    """The paragraphs of ``wiki.train.tokens`` with at least two sentences, lower-cased,
    split into sentences at ' . ', in random order.

    Args:
        data_dir (str): the folder holding ``wiki.train.tokens``.

    Returns:
        list[list[str]]: the paragraphs' sentences.
    """
    with open(os.path.join(data_dir, "wiki.train.tokens"), "r", encoding="utf-8") as f:
        lines = f.readlines()
    paragraphs = [line.strip().lower().split(" . ") for line in lines
                  if len(line.split(" . ")) >= 2]
    random.shuffle(paragraphs)
    return paragraphs


def _get_next_sentence(sentence: Any, next_sentence: Any,
                       paragraphs: Sequence[Sequence[Any]]) -> Tuple[Any, Any, bool]:
    """A next-sentence-prediction pair: half the time the true next sentence, otherwise a
    random sentence of a random paragraph.

    Args:
        sentence: the first sentence.
        next_sentence: the sentence that follows it.
        paragraphs (list[list]): all paragraphs, to draw the random sentence from.

    Returns:
        tuple: (sentence, second sentence, whether it is the true next one).
    """
    if random.random() < 0.5:
        return sentence, next_sentence, True
    return sentence, random.choice(random.choice(paragraphs)), False


def _get_nsp_data_from_paragraph(paragraph: Sequence[List[str]],
                                 paragraphs: Sequence[Sequence[List[str]]], vocab: Vocab,
                                 max_len: int) -> List[Tuple[List[str], List[int], bool]]:
    """NSP examples of consecutive sentence pairs of one paragraph, keeping those whose BERT
    input ('<cls>' and two '<sep>' included) fits in ``max_len``.

    Args:
        paragraph (list[list[str]]): the paragraph's tokenized sentences.
        paragraphs (list): all tokenized paragraphs.
        vocab (Vocab): the vocabulary (unused; the book's signature).
        max_len (int): the longest BERT input.

    Returns:
        list[tuple[list[str], list[int], bool]]: (tokens, segments, is_next) per example.
    """
    out = []
    for first, second in zip(paragraph[:-1], paragraph[1:]):
        tokens_a, tokens_b, is_next = _get_next_sentence(first, second, paragraphs)
        if len(tokens_a) + len(tokens_b) + 3 <= max_len:
            tokens, segments = get_tokens_and_segments(tokens_a, tokens_b)
            out.append((tokens, segments, is_next))
    return out


def _replace_mlm_tokens(tokens: Sequence[str], candidate_pred_positions: List[int],
                        num_mlm_preds: int,
                        vocab: Vocab) -> Tuple[List[str], List[Tuple[int, str]]]:
    """Picks ``num_mlm_preds`` positions at random (``candidate_pred_positions`` is shuffled in
    place) and corrupts them: 80% become '<mask>', 10% stay, 10% become a random token of the
    vocabulary.

    Args:
        tokens (list[str]): the BERT input tokens.
        candidate_pred_positions (list[int]): positions that may be predicted.
        num_mlm_preds (int): how many to predict.
        vocab (Vocab): the vocabulary (source of random tokens).

    Returns:
        tuple[list[str], list[tuple[int, str]]]: the corrupted tokens and the
        (position, original token) pairs, in the order drawn.
    """
    corrupted = list(tokens)
    picked: List[Tuple[int, str]] = []
    random.shuffle(candidate_pred_positions)
    for pos in candidate_pred_positions[:num_mlm_preds]:
        if random.random() < 0.8:
            corrupted[pos] = "<mask>"
        elif random.random() < 0.5:
            corrupted[pos] = tokens[pos]
        else:
            corrupted[pos] = random.choice(vocab.idx_to_token)
        picked.append((pos, tokens[pos]))
    return corrupted, picked


def _get_mlm_data_from_tokens(tokens: Sequence[str],
                              vocab: Vocab) -> Tuple[List[int], List[int], List[int]]:
    """An MLM example: 15% of the tokens (at least one; never '<cls>' or '<sep>') are
    chosen for prediction and corrupted by ``_replace_mlm_tokens``.

    Args:
        tokens (list[str]): the BERT input tokens.
        vocab (Vocab): the vocabulary.

    Returns:
        tuple[list[int], list[int], list[int]]: the corrupted input's indices, the predicted
        positions (ascending) and the original tokens' indices there.
    """
    candidates = [i for i, t in enumerate(tokens) if t not in _SPECIAL]
    num_preds = max(1, round(len(tokens) * 0.15))
    corrupted, picked = _replace_mlm_tokens(tokens, candidates, num_preds, vocab)
    picked.sort(key=lambda pair: pair[0])
    return vocab[corrupted], [p for p, _ in picked], vocab[[t for _, t in picked]]


def _pad_bert_inputs(examples: Sequence[Tuple[List[int], List[int], List[int], List[int], bool]],
                     max_len: int, vocab: Vocab) -> Tuple[List[Any], ...]:
    """Pads every example to ``max_len`` tokens ('<pad>', segment 0) and
    round(0.15 * max_len) predictions (position 0, weight 0, label 0).

    Args:
        examples (list[tuple]): (token_ids, pred_positions, mlm_label_ids, segments, is_next).
        max_len (int): the padded length.
        vocab (Vocab): the vocabulary (with '<pad>').

    Returns:
        tuple[list[Tensor], ...]: per example: token ids (max_len,) int64, segments
        (max_len,) int64, valid length () float32, prediction positions (P,) int64, MLM
        weights (P,) float32, MLM labels (P,) int64 and the NSP label () int64.
    """
    num_preds = round(max_len * 0.15)
    pad = vocab["<pad>"]
    cols: Tuple[List[Any], ...] = ([], [], [], [], [], [], [])
    for token_ids, positions, labels, segments, is_next in examples:
        fill_tok, fill_pred = max_len - len(token_ids), num_preds - len(positions)
        cols[0].append(mint.tensor(token_ids + [pad] * fill_tok, dtype=mint.long))
        cols[1].append(mint.tensor(segments + [0] * (max_len - len(segments)),
                                   dtype=mint.long))
        cols[2].append(mint.tensor(len(token_ids), dtype=mint.float32))
        cols[3].append(mint.tensor(positions + [0] * fill_pred, dtype=mint.long))
        cols[4].append(mint.tensor([1.0] * len(labels) + [0.0] * fill_pred,
                                   dtype=mint.float32))
        cols[5].append(mint.tensor(labels + [0] * (num_preds - len(labels)), dtype=mint.long))
        cols[6].append(mint.tensor(is_next, dtype=mint.long))
    return cols


class _WikiTextDataset(Dataset[Tuple[Any, ...]]):
    """BERT pretraining examples of tokenized paragraphs: the vocabulary (tokens seen at least
    5 times, plus '<pad>', '<mask>', '<cls>', '<sep>'), NSP pairs of every paragraph, MLM
    corruption of each pair, padded by ``_pad_bert_inputs``.

    Args:
        paragraphs (list[list[str]]): paragraphs as lists of sentence strings.
        max_len (int): the BERT input length.
    """

    def __init__(self, paragraphs: Sequence[Sequence[str]], max_len: int) -> None:
        self._max_len = max_len
        tokenized = [tokenize(p, token="word") for p in paragraphs]
        sentences = [s for p in tokenized for s in p]
        self.vocab = Vocab(sentences, min_freq=5,
                           reserved_tokens=["<pad>", "<mask>", "<cls>", "<sep>"])
        pairs = []
        for p in tokenized:
            pairs.extend(_get_nsp_data_from_paragraph(p, tokenized, self.vocab, max_len))
        examples = [_get_mlm_data_from_tokens(tokens, self.vocab) + (segments, is_next)
                    for tokens, segments, is_next in pairs]
        (self.all_token_ids, self.all_segments, self.valid_lens, self.all_pred_positions,
         self.all_mlm_weights, self.all_mlm_labels,
         self.nsp_labels) = _pad_bert_inputs(examples, max_len, self.vocab)

    def _columns(self) -> Tuple[List[Any], ...]:
        return (self.all_token_ids, self.all_segments, self.valid_lens, self.all_pred_positions,
                self.all_mlm_weights, self.all_mlm_labels, self.nsp_labels)

    def __getitem__(self, idx: int) -> Tuple[Any, ...]:
        return tuple(col[idx] for col in self._columns())

    def __len__(self) -> int:
        return len(self.all_token_ids)

    def _tandem_loader_spec(self) -> Tuple[List[Any], List[List[Any]]]:
        """The seven columns stacked, for the DataLoader's tensor fast path."""
        if len(self):
            cols = [mint.stack(col) for col in self._columns()]
        else:
            num_preds = round(self._max_len * 0.15)
            shapes = [(0, self._max_len), (0, self._max_len), (0,), (0, num_preds),
                      (0, num_preds), (0, num_preds), (0,)]
            dtypes = [mint.long, mint.long, mint.float32, mint.long, mint.float32, mint.long,
                      mint.long]
            cols = [mint.zeros(s, dtype=d) for s, d in zip(shapes, dtypes)]
        return cols, [[] for _ in cols]


def load_data_wiki(batch_size: int, max_len: int) -> Tuple[DataLoader[Any], Vocab]:
    """WikiText-2's training split as shuffled BERT pretraining batches, and its vocabulary.

    Args:
        batch_size (int): examples per batch.
        max_len (int): the BERT input length.

    Returns:
        tuple[DataLoader, Vocab]: batches of (tokens, segments, valid_lens, pred_positions,
        mlm_weights, mlm_labels, nsp_labels), and the vocabulary.
    """
    paragraphs = _read_wiki(data_hub.download_extract("wikitext-2", "wikitext-2"))
    train_set = _WikiTextDataset(paragraphs, max_len)
    loader = DataLoader(train_set, batch_size, shuffle=True,
                        num_workers=core.get_dataloader_workers())
    return loader, train_set.vocab


def _get_batch_loss_bert(net: Any, loss: Any, vocab_size: int, tokens_X: Any, segments_X: Any,
                         valid_lens_x: Any, pred_positions_X: Any, mlm_weights_X: Any,
                         mlm_Y: Any, nsp_y: Any) -> Tuple[Any, Any, Any]:
    """The pretraining losses of one batch. The MLM term is ``loss`` over all prediction
    slots, weighted by ``mlm_weights_X`` (as a column) and divided by the weights' sum; with
    the book's mean-reduced CrossEntropyLoss this is the mean over all slots, padding
    included, as in the book.

    Args:
        net (BERTModel): the model.
        loss (Callable): the classification loss (e.g. ``nn.CrossEntropyLoss()``).
        vocab_size (int): vocabulary size.
        tokens_X (Tensor): (batch, steps) token ids.
        segments_X (Tensor): (batch, steps) segment ids.
        valid_lens_x (Tensor): (batch,) valid lengths.
        pred_positions_X (Tensor): (batch, P) positions to predict.
        mlm_weights_X (Tensor): (batch, P) 1 for real predictions, 0 for padding.
        mlm_Y (Tensor): (batch, P) the original tokens.
        nsp_y (Tensor): (batch,) NSP labels.

    Returns:
        tuple[Tensor, Tensor, Tensor]: the MLM loss, the NSP loss and their sum.
    """
    _, mlm_scores, nsp_scores = net(tokens_X, segments_X, valid_lens_x.reshape(-1),
                                    pred_positions_X)
    weights = mlm_weights_X.reshape(-1, 1)
    per_slot = loss(mlm_scores.reshape(-1, vocab_size), mlm_Y.reshape(-1)) * weights
    mlm_l = per_slot.sum() / (mlm_weights_X.sum() + 1e-8)
    nsp_l = loss(nsp_scores, nsp_y)
    return mlm_l, nsp_l, mlm_l + nsp_l
