"""tandem.d2l's chapter-14 helpers (word2vec data on PTB, pretrained token vectors, BERT and
its WikiText-2 data) on tiny fixture archives in the book's on-disk layout: exact values on
hand-computed cases, the book's random-draw order and proportions, shapes and dtypes, and a
few pretraining steps."""
import collections
import hashlib
import math
import random
import zipfile

import numpy as np
import pytest

import tandem
from tandem import d2l, mint
from tandem.mint import nn

_WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi "
          "rho sigma tau upsilon").split()


@pytest.fixture
def hub(monkeypatch, tmp_path):
    """put(name, archive, {member: text}) writes a zip into a fresh $TANDEM_DATA and points
    DATA_HUB[name] at it with the fixture's own SHA-1 (archives unpack under tmp_path)."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("TANDEM_DATA", str(data))
    monkeypatch.setenv("TANDEM_D2L_CACHE", str(tmp_path / "cache"))

    def put(name, archive, members):
        path = data / archive
        with zipfile.ZipFile(path, "w") as z:
            for member, text in members.items():
                z.writestr(member, text)
        sha1 = hashlib.sha1(path.read_bytes()).hexdigest()
        url = d2l.DATA_HUB[name][0] if name in d2l.DATA_HUB else d2l.DATA_URL + archive
        monkeypatch.setitem(d2l.DATA_HUB, name, (url, sha1))
        return path
    return put


def _ptb_text(n_lines=120, seed=0):
    rng = random.Random(seed)
    lines = []
    for _ in range(n_lines):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(1, 12))]
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words) + 1), "<unk>")
        lines.append(" " + " ".join(words) + " ")
    return "\n".join(lines) + "\n"


def _wiki_text(n_paragraphs=40, seed=0):
    rng = random.Random(seed)
    out = [" \n", " = Title = \n", " \n"]
    for _ in range(n_paragraphs):
        sentences = [" ".join(rng.choice(_WORDS).capitalize() if i == 0 else rng.choice(_WORDS)
                              for i in range(rng.randint(2, 7)))
                     for _ in range(rng.randint(2, 5))]
        out.append(" " + " . ".join(sentences) + " . \n")
        out.append(" = = Section = = \n")
    return "".join(out)


# --- DATA_HUB -------------------------------------------------------------------------------
def test_hub_lists_the_books_pretraining_files():
    expect = {
        "ptb": ("ptb.zip", "319d85e578af0cdc590547f26231e4e31cdf1e42"),
        "wikitext-2": ("wikitext-2-v1.zip", "3c914d17d80b1459be871a5039ac23e752a53cbe"),
        "glove.6b.50d": ("glove.6B.50d.zip", "0b8703943ccdb6eb788e6f091b8946e82231bc4d"),
        "glove.6b.100d": ("glove.6B.100d.zip", "cd43bfb07e44e6f27cbcc7bc9ae3d80284fdaf5a"),
        "glove.42b.300d": ("glove.42B.300d.zip", "b5116e234e9eb9076672cfeabf5469f3eec904fa"),
        "wiki.en": ("wiki.en.zip", "c1816da3821ae9f43899be655002f6c723e91b88"),
    }
    for name, (fname, sha1) in expect.items():
        url, got = d2l.DATA_HUB[name]
        assert url.rsplit("/", 1)[-1] == fname and got == sha1, name


# --- word2vec data ----------------------------------------------------------------------------
def test_read_ptb_lines(hub):
    hub("ptb", "ptb.zip", {"ptb/ptb.train.txt": " a b <unk> c \n d e \n"})
    assert d2l.read_ptb() == [["a", "b", "<unk>", "c"], ["d", "e"], []]


def test_subsample_drops_unknowns_and_keeps_with_the_books_probability():
    sentences = [["hi"] * 8 + ["lo"] * 2 + ["oov"] for _ in range(2000)] + [["rare", "oov"]]
    vocab = d2l.Vocab([s[:-1] for s in sentences[:-1]] + [["rare"]])  # 'oov' is unknown
    assert vocab["oov"] == vocab.unk and vocab["rare"] != vocab.unk
    random.seed(7)
    kept, counter = d2l.subsample(sentences, vocab)
    assert counter == collections.Counter({"hi": 16000, "lo": 4000, "rare": 1})
    assert all("oov" not in line for line in kept)
    assert kept[-1] == ["rare"]  # sqrt(1e-4 * N / 1) > 1: always kept
    n = 20001
    for tok, f in (("hi", 16000), ("lo", 4000)):
        p = math.sqrt(1e-4 * n / f)
        got = sum(line.count(tok) for line in kept)
        assert abs(got - p * f) < 5 * math.sqrt(f * p * (1 - p)), (tok, got, p * f)
    # the same draws as the book: one random.uniform per known token, in reading order
    random.seed(7)
    p = {t: math.sqrt(1e-4 * n / c) for t, c in counter.items()}
    expect = [[t for t in line if t != "oov" and random.uniform(0, 1) < p[t]]
              for line in sentences]
    assert kept == expect


def test_centers_and_contexts_exact():
    corpus = [list(range(7)), [7, 8, 9], [10]]
    centers, contexts = d2l.get_centers_and_contexts(corpus, 1)
    assert centers == list(range(10))
    assert contexts == [[1], [0, 2], [1, 3], [2, 4], [3, 5], [4, 6], [5], [8], [7, 9], [8]]
    random.seed(3)
    windows = [random.randint(1, 3) for _ in range(10)]  # one draw per center, in order
    random.seed(3)
    centers, contexts = d2l.get_centers_and_contexts(corpus, 3)
    k = 0
    for line in corpus[:2]:
        for i, c in enumerate(line):
            w = windows[k]
            assert centers[k] == c
            assert contexts[k] == [line[j] for j in range(max(0, i - w), min(len(line), i + w + 1))
                                   if j != i]
            k += 1


def test_random_generator_buffer_and_proportions():
    random.seed(11)
    g = d2l.RandomGenerator([2, 3, 4])
    draws = [g.draw() for _ in range(30000)]
    assert set(draws) == {1, 2, 3} and len(g.candidates) == 10000 and g.i == 10000
    freq = np.bincount(draws, minlength=4)[1:] / len(draws)
    np.testing.assert_allclose(freq, [2 / 9, 3 / 9, 4 / 9], atol=0.015)
    random.seed(11)
    assert draws[:10000] == random.choices([1, 2, 3], [2, 3, 4], k=10000)


def test_get_negatives_counts_exclusion_and_weights():
    vocab = d2l.Vocab([["a"] * 16 + ["b"] * 81 + ["c"]])  # a=idx 2, b=idx 1, c=idx 3
    counter = collections.Counter({"a": 16, "b": 81, "c": 1})
    contexts = [[1], [2, 3], [3]] * 400
    random.seed(5)
    negs = d2l.get_negatives(contexts, vocab, counter, 3)
    assert [len(n) for n in negs] == [3 * len(c) for c in contexts]
    assert all(not set(n) & set(c) for n, c in zip(negs, contexts))
    assert all(1 <= x < len(vocab) for n in negs for x in n)
    # contexts [3]: noise from {1, 2} with weights 81^.75 : 16^.75 = 27 : 8
    pool = [x for n, c in zip(negs, contexts) if c == [3] for x in n]
    assert abs(pool.count(1) / len(pool) - 27 / 35) < 0.03
    assert {x for n, c in zip(negs, contexts) if c == [2, 3] for x in n} == {1}


def test_batchify_exact():
    centers, cn, masks, labels = d2l.batchify([(1, [2, 2], [3, 3, 3, 3]), (1, [2, 2, 2], [3, 3]),
                                               (4, [5], [6, 6])])
    assert all(t.dtype == mint.int64 for t in (centers, cn, masks, labels))
    assert centers.tolist() == [[1], [1], [4]]
    assert cn.tolist() == [[2, 2, 3, 3, 3, 3], [2, 2, 2, 3, 3, 0], [5, 6, 6, 0, 0, 0]]
    assert masks.tolist() == [[1] * 6, [1] * 5 + [0], [1] * 3 + [0] * 3]
    assert labels.tolist() == [[1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0]]


def test_load_data_ptb_batches(hub):
    hub("ptb", "ptb.zip", {"ptb/ptb.train.txt": _ptb_text()})
    random.seed(0)
    it, vocab = d2l.load_data_ptb(16, 2, 3)
    assert vocab.idx_to_token[0] == "<unk>" and set(vocab.idx_to_token[1:]) <= set(_WORDS)
    n_batches = 0
    for centers, cn, masks, labels in it:
        b, width = cn.shape
        assert tuple(centers.shape) == (b, 1) and tuple(masks.shape) == (b, width)
        assert centers.dtype == cn.dtype == masks.dtype == labels.dtype == mint.int64
        m, l = masks.numpy(), labels.numpy()
        n_ctx = l.sum(1)
        assert (1 <= n_ctx).all() and (n_ctx <= 4).all()      # window 1..2 on each side
        np.testing.assert_array_equal(m.sum(1), 4 * n_ctx)    # contexts + 3 noise words each
        assert (l <= m).all() and (cn.numpy()[m == 0] == 0).all()
        assert (cn.numpy()[m == 1] > 0).all() and (centers.numpy() > 0).all()
        n_batches += 1
    assert n_batches == len(it) > 1


def test_token_embedding_glove_and_fasttext(hub):
    hub("glove.6b.50d", "glove.6B.50d.zip",
        {"glove.6B.50d/vec.txt": "the 0.1 0.2 0.3\ncat -1 0.5 2\nsat 3 4 5\n"})
    emb = d2l.TokenEmbedding("glove.6b.50d")
    assert len(emb) == 4 and emb.idx_to_token == ["<unk>", "the", "cat", "sat"]
    assert emb.token_to_idx["cat"] == 2 and emb.unknown_idx == 0
    v = emb[["cat", "dog", "the"]]
    assert v.dtype == mint.float32 and tuple(v.shape) == (3, 3)
    np.testing.assert_allclose(v.numpy(), [[-1, 0.5, 2], [0, 0, 0], [0.1, 0.2, 0.3]], rtol=1e-6)
    assert tuple(emb.idx_to_vec.shape) == (4, 3)
    hub("wiki.en", "wiki.en.zip", {"wiki.en/vec.txt": "2 4\nein 1 2 3 4 \nzwei 5 6 7 8 \n"})
    ft = d2l.TokenEmbedding("wiki.en")  # the "count dim" header line is skipped
    assert ft.idx_to_token == ["<unk>", "ein", "zwei"]
    np.testing.assert_allclose(ft[["zwei"]].numpy(), [[5, 6, 7, 8]])


# --- BERT data ------------------------------------------------------------------------------
def test_tokens_and_segments():
    assert d2l.get_tokens_and_segments(["a", "b"]) == (["<cls>", "a", "b", "<sep>"], [0] * 4)
    assert d2l.get_tokens_and_segments(["a"], ["b", "c"]) == (
        ["<cls>", "a", "<sep>", "b", "c", "<sep>"], [0, 0, 0, 1, 1, 1])


def _bert_vocab():
    return d2l.Vocab([_WORDS], reserved_tokens=["<pad>", "<mask>", "<cls>", "<sep>"])


def test_pad_bert_inputs_exact():
    vocab = _bert_vocab()
    ex = [([3, 7, 8, 4], [1], [9], [0, 0, 0, 0], True),
          ([3, 7, 4, 8, 9, 4], [2, 4], [10, 11], [0, 0, 0, 1, 1, 1], False)]
    cols = d2l._pad_bert_inputs(ex, 14, vocab)  # round(14 * .15) = 2 prediction slots
    tok, seg, vl, pos, w, lab, nsp = cols
    assert all(len(c) == 2 for c in cols)
    assert tok[0].tolist() == [3, 7, 8, 4] + [1] * 10 and tok[0].dtype == mint.int64
    assert seg[1].tolist() == [0, 0, 0, 1, 1, 1] + [0] * 8 and seg[1].dtype == mint.int64
    assert [float(v) for v in vl] == [4.0, 6.0] and vl[0].dtype == mint.float32
    assert tuple(vl[0].shape) == () and tuple(nsp[0].shape) == ()
    assert pos[0].tolist() == [1, 0] and pos[1].tolist() == [2, 4] and pos[0].dtype == mint.int64
    assert w[0].tolist() == [1.0, 0.0] and w[1].tolist() == [1.0, 1.0]
    assert w[0].dtype == mint.float32
    assert lab[0].tolist() == [9, 0] and lab[1].tolist() == [10, 11]
    assert [int(v) for v in nsp] == [1, 0] and nsp[0].dtype == mint.int64


def test_mlm_data_positions_labels_and_proportions():
    vocab = _bert_vocab()
    tokens, _ = d2l.get_tokens_and_segments(_WORDS[:12], _WORDS[12:])
    n = len(tokens)  # 23 -> round(3.45) = 3 predictions
    random.seed(1)
    kinds = collections.Counter()
    for _ in range(3000):
        ids, positions, labels = d2l._get_mlm_data_from_tokens(tokens, vocab)
        assert len(positions) == 3 and positions == sorted(positions)
        assert all(tokens[p] not in ("<cls>", "<sep>") for p in positions)
        assert labels == vocab[[tokens[p] for p in positions]]
        assert len(ids) == n
        assert all(ids[i] == vocab[t] for i, t in enumerate(tokens) if i not in positions)
        for p in positions:
            kinds["mask" if ids[p] == vocab["<mask>"] else
                  "same" if ids[p] == vocab[tokens[p]] else "random"] += 1
    total = sum(kinds.values())
    # the random 10% draws the original token or '<mask>' 1 time in len(vocab) (25) each
    r = 0.1 / len(vocab)
    assert abs(kinds["mask"] / total - (0.8 + r)) < 0.02
    assert abs(kinds["same"] / total - (0.1 + r)) < 0.015
    assert abs(kinds["random"] / total - (0.1 - 2 * r)) < 0.015
    assert d2l._get_mlm_data_from_tokens(["<cls>", "a", "<sep>"], vocab)[1] == [1]  # at least 1


def test_replace_mlm_tokens_shuffles_candidates_in_place():
    vocab = _bert_vocab()
    tokens = ["<cls>", "alpha", "beta", "gamma", "<sep>"]
    cand = [1, 2, 3]
    random.seed(2)
    out, pairs = d2l._replace_mlm_tokens(tokens, cand, 2, vocab)
    assert [p for p, _ in pairs] == cand[:2] and sorted(cand) == [1, 2, 3]
    assert all(tokens[p] == t for p, t in pairs) and tokens[1] == "alpha"  # input untouched
    assert [out[i] for i in (0, 4)] == ["<cls>", "<sep>"]


def test_next_sentence_and_nsp_pairs(monkeypatch):
    paragraphs = [[["x", "y"], ["z"]], [["u"], ["v", "w"], ["q"]]]
    random.seed(4)
    flags = [d2l._get_next_sentence(["a"], ["b"], paragraphs)[2] for _ in range(4000)]
    assert abs(sum(flags) / len(flags) - 0.5) < 0.03
    random.seed(4)
    for _ in range(200):
        a, b, is_next = d2l._get_next_sentence(["a"], ["b"], paragraphs)
        assert a == ["a"] and (b == ["b"] if is_next else any(b in p for p in paragraphs))
    monkeypatch.setattr(random, "random", lambda: 0.0)  # always the true next sentence
    para = [["a"] * 2, ["b"] * 3, ["c"] * 5, ["d"] * 2]
    got = d2l._get_nsp_data_from_paragraph(para, [para], None, 10)
    # with '<cls>' and two '<sep>': (a, b) 8 <= 10 kept; (b, c) 11 dropped; (c, d) 10 kept
    assert got == [(["<cls>", "a", "a", "<sep>", "b", "b", "b", "<sep>"], [0] * 4 + [1] * 4, True),
                   (["<cls>"] + ["c"] * 5 + ["<sep>", "d", "d", "<sep>"], [0] * 7 + [1] * 3, True)]


def test_read_wiki(tmp_path):
    (tmp_path / "wiki.train.tokens").write_text(
        " = T = \n One sentence only \n A b . C d . \n E . F . G \n", encoding="utf-8")
    random.seed(0)
    got = d2l._read_wiki(str(tmp_path))
    assert sorted(got) == [["a b", "c d ."], ["e", "f", "g"]]


def test_load_data_wiki_batches(hub):
    hub("wikitext-2", "wikitext-2-v1.zip", {"wikitext-2/wiki.train.tokens": _wiki_text()})
    random.seed(0)
    max_len = 24
    it, vocab = d2l.load_data_wiki(8, max_len)
    assert vocab.idx_to_token[:5] == ["<unk>", "<pad>", "<mask>", "<cls>", "<sep>"]
    ds = it.dataset
    assert isinstance(ds, d2l._WikiTextDataset) and len(ds) > 16
    P = round(max_len * 0.15)
    seen = 0
    for batch in it:
        tok, seg, vl, pos, w, lab, nsp = batch
        b = tok.shape[0]
        shapes = [tuple(t.shape) for t in batch]
        assert shapes == [(b, max_len), (b, max_len), (b,), (b, P), (b, P), (b, P), (b,)]
        assert [t.dtype for t in batch] == [mint.int64, mint.int64, mint.float32, mint.int64,
                                            mint.float32, mint.int64, mint.int64]
        t, v = tok.numpy(), vl.numpy().astype(int)
        beyond = np.arange(max_len)[None, :] >= v[:, None]
        assert (t[beyond] == vocab["<pad>"]).all() and (seg.numpy()[beyond] == 0).all()
        assert (t[:, 0] == vocab["<cls>"]).all()
        assert (t[np.arange(b), v - 1] == vocab["<sep>"]).all()
        n_pred = w.numpy().sum(1).astype(int)
        assert ((pos.numpy() < v[:, None]) | (w.numpy() == 0)).all()
        assert (n_pred == np.maximum(1, np.round(v * 0.15))).all()
        assert set(np.unique(nsp.numpy())) <= {0, 1}
        seen += b
    assert seen == len(ds)
    # the loader's stacked fast path gives the dataset's own items
    whole = next(iter(mint.utils.data.DataLoader(ds, len(ds), shuffle=False)))
    for col, items in zip(whole, zip(*[ds[i] for i in range(len(ds))])):
        np.testing.assert_array_equal(col.numpy(), np.stack([x.numpy() for x in items]))


# --- BERT model -----------------------------------------------------------------------------
def _small_bert(vocab_size=30, h=16, dropout=0.0, layers=2):
    return d2l.BERTModel(vocab_size, h, [h], h, 2 * h, 2, layers, dropout, max_len=40,
                         key_size=h, query_size=h, value_size=h, hid_in_features=h,
                         mlm_in_features=h, nsp_in_features=h)


def test_bert_shapes_names_and_heads():
    net = _small_bert()
    keys = list(net.state_dict())
    for k in ("encoder.pos_embedding", "encoder.token_embedding.weight",
              "encoder.segment_embedding.weight", "encoder.blks.1.attention.W_q.bias",
              "encoder.blks.0.addnorm2.ln.weight", "encoder.blks.0.ffn.dense1.weight",
              "hidden.0.weight", "mlm.mlp.2.weight", "mlm.mlp.3.bias", "nsp.output.weight"):
        assert k in keys, k
    assert len(keys) == 3 + 2 * 16 + 2 + 6 + 2
    tok = mint.randint(0, 30, (2, 8))
    seg = mint.tensor([[0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 1, 1, 1, 1, 1]])
    enc, mlm, nsp = net(tok, seg, mint.tensor([8.0, 6.0]), mint.tensor([[1, 5, 2], [6, 1, 5]]))
    assert tuple(enc.shape) == (2, 8, 16) and tuple(mlm.shape) == (2, 3, 30)
    assert tuple(nsp.shape) == (2, 2)
    assert net(tok, seg)[1] is None
    # MaskLM scores the encodings at the given positions
    direct = net.mlm.mlp(mint.stack([enc[0, 1], enc[0, 5], enc[0, 2], enc[1, 6], enc[1, 1],
                                     enc[1, 5]]))
    np.testing.assert_allclose(mlm.reshape(6, 30).detach().numpy(), direct.detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nsp.detach().numpy(),
                               net.nsp(net.hidden(enc[:, 0, :])).detach().numpy(), rtol=1e-5)


def test_bert_encoder_ignores_padding_and_keeps_position_embedding_fixed():
    tandem.manual_seed(0)
    net = _small_bert()
    net.eval()
    seg = mint.zeros(2, 6, dtype=mint.long)
    a = mint.tensor([[5, 6, 7, 1, 1, 1], [8, 9, 1, 1, 1, 1]])
    b = mint.tensor([[5, 6, 7, 20, 21, 22], [8, 9, 3, 3, 3, 3]])
    vl = mint.tensor([3.0, 2.0])
    ea, eb = net.encoder(a, seg, vl), net.encoder(b, seg, vl)
    np.testing.assert_allclose(ea[0, :3].detach().numpy(), eb[0, :3].detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(ea[1, :2].detach().numpy(), eb[1, :2].detach().numpy(), atol=1e-5)
    net.train()
    enc, _, nsp = net(a, seg, vl)
    (enc.sum() + nsp.sum()).backward()
    assert net.encoder.token_embedding.weight.grad is not None
    g = net.encoder.pos_embedding.grad  # the book adds it through .data: never trained
    assert g is None or float(g.abs().sum()) == 0.0


def _bert_batch(vocab_size=30, b=6, steps=10, seed=0):
    rng = random.Random(seed)
    vocab = d2l.Vocab([[f"w{i}" for i in range(vocab_size - 5)] * 5],
                      reserved_tokens=["<pad>", "<mask>", "<cls>", "<sep>"])
    examples = []
    for _ in range(b):
        a = [f"w{rng.randrange(vocab_size - 5)}" for _ in range(rng.randint(1, 3))]
        c = [f"w{rng.randrange(vocab_size - 5)}" for _ in range(rng.randint(1, 3))]
        tokens, segments = d2l.get_tokens_and_segments(a, c)
        examples.append(d2l._get_mlm_data_from_tokens(tokens, vocab) +
                        (segments, rng.random() < 0.5))
    cols = d2l._pad_bert_inputs(examples, steps, vocab)
    return [mint.stack(c) for c in cols]


def test_batch_loss_bert_value_and_training_reduces_it():
    random.seed(0)
    tandem.manual_seed(0)
    batch = _bert_batch()
    net = _small_bert()
    net.eval()
    mlm_l, nsp_l, l = d2l._get_batch_loss_bert(net, nn.CrossEntropyLoss(reduction="none"), 30,
                                               *batch)
    tok, seg, vl, pos, w, lab, nsp_y = batch
    _, mlm, nsp = net(tok, seg, vl, pos)
    ce = nn.CrossEntropyLoss(reduction="none")
    per = ce(mlm.reshape(-1, 30), lab.reshape(-1)).detach().numpy()
    wts = w.reshape(-1).numpy()
    # a per-slot loss times the weights as a column: every weighted row sums all slots
    want = (per[None, :] * wts[:, None]).sum() / (wts.sum() + 1e-8)
    np.testing.assert_allclose(float(mlm_l), want, rtol=1e-5)
    np.testing.assert_allclose(nsp_l.detach().numpy(),
                               ce(nsp, nsp_y).detach().numpy(), rtol=1e-5)
    # the book's mean-reduced loss: the MLM term is the mean over all slots
    loss = nn.CrossEntropyLoss()
    mlm_m, nsp_m, _ = d2l._get_batch_loss_bert(net, loss, 30, *batch)
    np.testing.assert_allclose(float(mlm_m), per.mean(), rtol=1e-5)
    net.train()
    opt = mint.optim.Adam(net.parameters(), lr=0.01)
    losses = []
    for _ in range(12):
        opt.zero_grad()
        _, _, l = d2l._get_batch_loss_bert(net, loss, 30, *batch)
        l.backward()
        opt.step()
        losses.append(float(l))
    assert losses[-1] < 0.6 * losses[0], losses


def test_bert_encoder_matches_torch_reference():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    tandem.manual_seed(3)
    net = _small_bert(h=8, layers=2)
    net.eval()
    sd = {k: torch.tensor(v.detach().numpy()) for k, v in net.encoder.state_dict().items()}
    tok = [[3, 5, 7, 9, 4, 1], [3, 10, 4, 11, 12, 4]]
    seg = [[0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 1, 1]]
    vl = [5, 6]
    got = net.encoder(mint.tensor(tok), mint.tensor(seg), mint.tensor(vl, dtype=mint.float32))
    heads, T = 2, 6
    with torch.no_grad():
        X = F.embedding(torch.tensor(tok), sd["token_embedding.weight"]) + \
            F.embedding(torch.tensor(seg), sd["segment_embedding.weight"]) + \
            sd["pos_embedding"][:, :T]
        keep = torch.arange(T)[None, :] < torch.tensor(vl)[:, None]  # (batch, keys)
        for i in range(2):
            p = {k[len(f"blks.{i}."):]: v for k, v in sd.items() if k.startswith(f"blks.{i}.")}

            def proj(x, name):
                return F.linear(x, p[f"attention.{name}.weight"], p[f"attention.{name}.bias"])

            def split(x):
                return x.reshape(2, T, heads, -1).transpose(1, 2)  # (batch, heads, T, d)
            q, k, v = split(proj(X, "W_q")), split(proj(X, "W_k")), split(proj(X, "W_v"))
            s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
            s = s.masked_fill(~keep[:, None, None, :], float("-inf"))
            att = (s.softmax(-1) @ v).transpose(1, 2).reshape(2, T, -1)
            Y = F.layer_norm(proj(att, "W_o") + X, (8,), p["addnorm1.ln.weight"],
                             p["addnorm1.ln.bias"])
            ffn = F.linear(F.relu(F.linear(Y, p["ffn.dense1.weight"], p["ffn.dense1.bias"])),
                           p["ffn.dense2.weight"], p["ffn.dense2.bias"])
            X = F.layer_norm(ffn + Y, (8,), p["addnorm2.ln.weight"], p["addnorm2.ln.bias"])
    np.testing.assert_allclose(got.detach().numpy(), X.numpy(), rtol=1e-4, atol=1e-5)
