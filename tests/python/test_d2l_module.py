"""tandem.d2l, the D2L book's helpers on tandem: offline data hub, loaders, plotting that
leaves matplotlib's backend alone and updates one notebook figure in place, training loops."""
import os

import numpy as np
import pytest

import tandem
from tandem import d2l, mint
from tandem.mint import nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("TANDEM_DATA") or next(
    (d for d in (os.path.join(os.path.dirname(ROOT), "shared", "data", "d2l"),
                 os.path.join(os.path.dirname(os.path.dirname(ROOT)), "shared", "data", "d2l"))
     if os.path.isdir(d)), "")
have_data = pytest.mark.skipif(not os.path.isfile(os.path.join(DATA, "timemachine.txt")),
                               reason="the book's data sets are not here")


@pytest.fixture
def data_env(monkeypatch, tmp_path):
    monkeypatch.setenv("TANDEM_DATA", DATA)
    monkeypatch.setenv("TANDEM_D2L_CACHE", str(tmp_path / "cache"))
    return tmp_path


@have_data
def test_download_resolves_local_files_with_sha1(data_env):
    path = d2l.download("time_machine")
    assert os.path.samefile(path, os.path.join(DATA, "timemachine.txt"))
    lines = d2l.read_time_machine()
    assert lines[0] == "the time machine by h g wells"


def test_download_never_fetches(monkeypatch, tmp_path):
    monkeypatch.setenv("TANDEM_DATA", str(tmp_path))
    d2l.DATA_HUB["only_remote"] = (d2l.DATA_URL + "nowhere.txt", None)
    try:
        with pytest.raises(FileNotFoundError, match="never downloads"):
            d2l.download("only_remote", cache_dir=str(tmp_path / "none"))
        (tmp_path / "nowhere.txt").write_text("x")
        d2l.DATA_HUB["only_remote"] = (d2l.DATA_URL + "nowhere.txt", "0" * 40)
        with pytest.raises(ValueError, match="SHA-1"):
            d2l.download("only_remote")
    finally:
        del d2l.DATA_HUB["only_remote"]
    with pytest.raises(KeyError):
        d2l.download("no_such_entry")


@have_data
def test_time_machine_loader_and_vocab(data_env):
    it, vocab = d2l.load_data_time_machine(batch_size=4, num_steps=5)
    assert len(vocab) == 28 and vocab.to_tokens(vocab[["t", "h"]]) == ["t", "h"]
    X, Y = next(iter(it))
    assert tuple(X.shape) == (4, 5) and tuple(Y.shape) == (4, 5)
    np.testing.assert_array_equal(X.numpy()[:, 1:], Y.numpy()[:, :-1])


@have_data
def test_nmt_loader(data_env):
    it, src, tgt = d2l.load_data_nmt(batch_size=2, num_steps=8)
    X, X_len, Y, Y_len = next(iter(it))
    assert tuple(X.shape) == (2, 8) and tuple(Y.shape) == (2, 8)
    assert int(X_len.max()) <= 8 and "<eos>" in src.token_to_idx and "<bos>" in tgt.token_to_idx


def test_devices_are_cpu():
    assert d2l.try_gpu() == mint.device("cpu") and d2l.try_all_gpus() == [mint.device("cpu")]
    assert mint.zeros(2, device=d2l.try_gpu()).device == mint.device("cpu")


def test_bleu_and_text_helpers():
    assert d2l.bleu("a b c d", "a b c d", 2) == 1.0
    assert 0 < d2l.bleu("a b c x", "a b c d", 2) < 1
    assert d2l.truncate_pad([1, 2, 3], 5, 0) == [1, 2, 3, 0, 0]
    assert d2l.preprocess_nmt("Go.\u202fNow!") == "go . now !"
    X = mint.ones(2, 3)
    assert d2l.sequence_mask(X, mint.tensor([1, 2])).tolist() == [[1, 0, 0], [1, 1, 0]]


def test_animator_keeps_the_backend_and_plots(monkeypatch):
    import matplotlib
    backend = matplotlib.get_backend()
    anim = d2l.Animator(xlabel="epoch", legend=["a", "b"])
    anim.add(1, (0.5, 0.7))
    anim.add(2, (0.4, None))
    assert matplotlib.get_backend() == backend
    assert anim.X == [[1.0, 2.0], [1.0]] and anim.Y == [[0.5, 0.4], [0.7]]
    assert len(anim.axes[0].lines) == 2


def test_animator_updates_one_notebook_display(monkeypatch):
    pytest.importorskip("IPython")
    from IPython import display
    calls = []

    class Handle:
        def update(self, fig):
            calls.append(("update", fig))

    def fake_display(obj, display_id=None):
        calls.append(("display", obj, display_id))
        return Handle()
    monkeypatch.setattr(d2l.plotting, "in_notebook", lambda: True)
    monkeypatch.setattr(display, "display", fake_display)
    anim = d2l.Animator(legend=["loss"])
    for i in range(3):
        anim.add(i, [1.0 / (i + 1)])
    assert [c[0] for c in calls] == ["display", "update", "update"]
    assert calls[0][2] is True and calls[0][1] is anim.fig


def test_train_ch3_and_ch6_bounded(monkeypatch):
    monkeypatch.setenv("TANDEM_D2L_MAX_BATCHES", "2")
    tandem.manual_seed(0)
    X = mint.rand(64, 1, 28, 28)
    y = mint.randint(0, 10, (64,))
    it = d2l.load_array((X, y), 16)
    net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
    loss = nn.CrossEntropyLoss(reduction="none")
    l, acc, test = d2l.train_ch3(net, it, it, loss, 2, mint.optim.SGD(net.parameters(), lr=0.1))
    assert np.isfinite(l) and 0 <= acc <= 1 and 0 <= test <= 1
    conv = nn.Sequential(nn.Conv2d(1, 2, 5), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 24 * 24, 10))
    l6, a6, t6 = d2l.train_ch6(conv, it, it, 1, 0.1, d2l.try_gpu())
    assert np.isfinite(l6) and 0 <= t6 <= 1


def test_synthetic_data_and_linreg():
    tandem.manual_seed(1)
    w, b = mint.tensor([2.0, -3.4]), 4.2
    X, y = d2l.synthetic_data(w, b, 500)
    assert tuple(X.shape) == (500, 2) and tuple(y.shape) == (500, 1)
    resid = y - d2l.linreg(X, w.reshape(2, 1), b)
    assert float(resid.std()) < 0.02


def test_anchor_targets_and_detection():
    gt = mint.tensor([[0, 0.1, 0.08, 0.52, 0.92], [1, 0.55, 0.2, 0.9, 0.88]])
    anchors = mint.tensor([[0, 0.1, 0.2, 0.3], [0.15, 0.2, 0.4, 0.4], [0.63, 0.05, 0.88, 0.98],
                           [0.66, 0.45, 0.8, 0.8], [0.57, 0.3, 0.92, 0.9]])
    off, mask, cls = d2l.multibox_target(anchors.unsqueeze(0), gt.unsqueeze(0))
    assert cls.tolist() == [[0, 1, 2, 0, 2]]
    assert mask.tolist() == [[0.0] * 4 + [1.0] * 8 + [0.0] * 4 + [1.0] * 4]
    # anchor 1 -> box 0: centres (0.275, 0.3) vs (0.31, 0.5), anchor size 0.25 x 0.2
    np.testing.assert_allclose(off.numpy()[0, 4:8],
                               [1.4, 10.0, 5 * np.log(0.42 / 0.25 + 1e-6),
                                5 * np.log(0.84 / 0.2 + 1e-6)], rtol=1e-4)
    anc = mint.tensor([[0.1, 0.08, 0.52, 0.92], [0.08, 0.2, 0.56, 0.95],
                       [0.15, 0.3, 0.62, 0.91], [0.55, 0.2, 0.9, 0.88]])
    probs = mint.tensor([[0.0] * 4, [0.9, 0.8, 0.7, 0.1], [0.1, 0.2, 0.3, 0.9]])
    out = d2l.multibox_detection(probs.unsqueeze(0), mint.zeros(1, 16), anc.unsqueeze(0), 0.5)
    np.testing.assert_allclose(out.numpy()[0, :, :2], [[0, 0.9], [1, 0.9], [-1, 0.8], [-1, 0.7]],
                               rtol=1e-6)
    Y = d2l.multibox_prior(mint.zeros(1, 3, 4, 6), sizes=[0.5, 0.25], ratios=[1, 2])
    assert tuple(Y.shape) == (1, 4 * 6 * 3, 4)
    first = Y.reshape(4, 6, 3, 4)[0, 0, 0].numpy()  # centre (1/12, 1/8), w 0.5*4/6, h 0.5
    np.testing.assert_allclose(first, [1 / 12 - 1 / 6, 1 / 8 - 0.25, 1 / 12 + 1 / 6, 1 / 8 + 0.25],
                               rtol=1e-5)
