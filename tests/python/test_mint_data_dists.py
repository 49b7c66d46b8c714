"""DataLoader semantics (independent iterators, len, drop_last, collate_fn, samplers),
mint.utils.data, F.one_hot, torchvision's random augmentations and mint.distributions,
against torch 2.13."""
import math

import numpy as np
import pytest

import tandem
from tandem import mint
from tandem.mint.nn import functional as F
from tandem.utils.data import DataLoader, TensorDataset
from tandem.vision import transforms

torch = pytest.importorskip("torch")


def test_mint_utils_data_is_tandem_utils_data():
    import tandem.mint.utils.data as via_mint
    from tandem.mint.utils import data
    assert mint.utils.data is tandem.utils.data is via_mint is data
    from tandem.mint.utils.data import DataLoader as DL
    assert DL is DataLoader


def _ds(n=10):
    return TensorDataset(mint.arange(n), mint.arange(n) * 10)


def test_independent_iterators_like_torch():
    for lib_dl, lib_ds in ((DataLoader, _ds()),
                           (torch.utils.data.DataLoader,
                            torch.utils.data.TensorDataset(torch.arange(10), torch.arange(10) * 10))):
        dl = lib_dl(lib_ds, batch_size=3)
        a, b = iter(dl), iter(dl)
        first_a = next(a)[0].tolist()
        first_b = next(b)[0].tolist()
        rest_a = [x.tolist() for x, _ in a]
        assert first_a == first_b == [0, 1, 2]
        assert rest_a == [[3, 4, 5], [6, 7, 8], [9]]
        assert [x.tolist() for x, _ in b] == [[3, 4, 5], [6, 7, 8], [9]]


def test_nested_passes_with_shuffle_cover_everything():
    dl = DataLoader(_ds(12), batch_size=4, shuffle=True)
    outer = []
    for x, _ in dl:
        outer += x.tolist()
        inner = sorted(v for xb, _ in dl for v in xb.tolist())
        assert inner == list(range(12))
    assert sorted(outer) == list(range(12))


def test_zip_of_the_same_loader():
    dl = DataLoader(_ds(6), batch_size=2)
    pairs = [(a[0].tolist(), b[0].tolist()) for a, b in zip(dl, dl)]
    assert pairs == [([0, 1], [0, 1]), ([2, 3], [2, 3]), ([4, 5], [4, 5])]


@pytest.mark.parametrize("drop_last", [False, True])
def test_len_and_drop_last(drop_last):
    ours = DataLoader(_ds(10), batch_size=4, drop_last=drop_last)
    theirs = torch.utils.data.DataLoader(list(range(10)), batch_size=4, drop_last=drop_last)
    assert len(ours) == len(theirs)
    assert len(list(ours)) == len(list(theirs))


def test_collate_fn_and_sampler():
    samples = [(i, float(i) / 2) for i in range(7)]

    class DS:
        def __len__(self):
            return len(samples)

        def __getitem__(self, i):
            return samples[i]

    def collate(batch):
        return [a for a, _ in batch], sum(b for _, b in batch)
    order = [6, 0, 5, 1, 4]
    ours = list(DataLoader(DS(), batch_size=2, sampler=order, collate_fn=collate))
    theirs = list(torch.utils.data.DataLoader(samples, batch_size=2, sampler=order,
                                              collate_fn=collate))
    assert ours == theirs


def _structure(x):
    """A batch as nested python lists / dicts of numpy arrays, from either framework."""
    if isinstance(x, (list, tuple)):
        return [_structure(v) for v in x]
    if isinstance(x, dict):
        return {k: _structure(v) for k, v in x.items()}
    if hasattr(x, "numpy"):
        return ("tensor", x.numpy().tolist(), str(x.dtype).split(".")[-1].lower())
    return x


@pytest.mark.parametrize("batch_size", [None, 1, 3])
def test_nested_samples_collate_as_torch(batch_size):
    """Samples with nested tuples, dicts and strings are collated as PyTorch does (D2L's SNLI
    returns ((premise, hypothesis), label)); two same-shaped tensors of a pair used to be
    stacked into one tensor."""
    def sample(fw, i):
        return ((fw.full((3,), float(i)), fw.ones(2)), i, f"w{i}",
                {"a": np.full(2, i), "b": 0.5 * i})

    def dataset(fw):
        class DS:
            def __len__(self):
                return 5

            def __getitem__(self, i):
                return sample(fw, i)
        return DS()

    ours = [_structure(b) for b in DataLoader(dataset(mint), batch_size=batch_size)]
    theirs = [_structure(b) for b in torch.utils.data.DataLoader(dataset(torch),
                                                                 batch_size=batch_size)]
    assert ours == theirs
    from tandem.utils.data import Subset
    sub = list(DataLoader(Subset(dataset(mint), [4, 1]), batch_size=2))
    assert _structure(sub[0])[1] == ("tensor", [4, 1], "int64")


def test_one_hot_matches_torch():
    idx = [0, 2, 1, 2]
    ours = F.one_hot(mint.tensor(idx), 4)
    theirs = torch.nn.functional.one_hot(torch.tensor(idx), 4)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert ours.dtype == mint.int64
    two = F.one_hot(mint.tensor([[0, 1], [1, 0]]))
    np.testing.assert_array_equal(two.numpy(), torch.nn.functional.one_hot(
        torch.tensor([[0, 1], [1, 0]])).numpy())


# --- augmentations -----------------------------------------------------------------------------
def test_random_vertical_flip():
    x = mint.arange(12, dtype=mint.float32).reshape(1, 3, 4)
    np.testing.assert_array_equal(transforms.RandomVerticalFlip(p=1.0)(x).numpy(),
                                  x.numpy()[:, ::-1])
    np.testing.assert_array_equal(transforms.RandomVerticalFlip(p=0.0)(x).numpy(), x.numpy())


def test_random_resized_crop_shapes_and_full_scale():
    x = mint.rand(3, 20, 30)
    out = transforms.RandomResizedCrop((8, 10), scale=(0.1, 1.0), ratio=(0.5, 2))(x)
    assert tuple(out.shape) == (3, 8, 10)
    # the whole image at its own size is an identity crop
    same = transforms.RandomResizedCrop((20, 30), scale=(1.0, 1.0), ratio=(1.5, 1.5))(x)
    np.testing.assert_allclose(same.numpy(), x.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="scale"):
        transforms.RandomResizedCrop(8, scale=(1.0, 0.5))


def test_color_jitter_brightness_and_pil_roundtrip():
    from PIL import Image
    x = mint.full((3, 4, 4), 0.5)
    out = transforms.ColorJitter(brightness=(2.0, 2.0))(x)
    np.testing.assert_allclose(out.numpy(), np.ones((3, 4, 4)), rtol=1e-6)
    img = Image.fromarray(np.full((5, 6, 3), 100, dtype=np.uint8))
    res = transforms.ColorJitter(brightness=0.5, contrast=0.5, saturation=0.5, hue=0.1)(img)
    assert isinstance(res, Image.Image) and res.size == (6, 5)
    with pytest.raises(ValueError, match="hue"):
        transforms.ColorJitter(hue=0.7)


def test_to_tensor_on_pil_and_numpy_returns_tensor():
    from PIL import Image
    a = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    for pic in (Image.fromarray(a), a):
        t = transforms.ToTensor()(pic)
        assert isinstance(t, mint.Tensor) and tuple(t.shape) == (3, 2, 3)
        np.testing.assert_allclose(t.numpy(), np.moveaxis(a, -1, 0) / 255.0, rtol=1e-6)


def test_augmentations_inside_dataloader():
    class DS:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return mint.rand(3, 10, 10), i
    aug = transforms.Compose([transforms.RandomResizedCrop(6), transforms.RandomVerticalFlip(),
                              transforms.ColorJitter(brightness=0.3)])

    class Aug(DS):
        def __getitem__(self, i):
            x, y = super().__getitem__(i)
            return aug(x), y
    X, y = next(iter(DataLoader(Aug(), batch_size=4)))
    assert tuple(X.shape) == (4, 3, 6, 6)


# --- distributions -----------------------------------------------------------------------------
def test_multinomial_counts_like_torch():
    p = [0.2, 0.3, 0.5]
    ours = mint.distributions.multinomial.Multinomial(10, mint.tensor(p)).sample((2000,))
    theirs = torch.distributions.multinomial.Multinomial(10, torch.tensor(p)).sample((2000,))
    assert tuple(ours.shape) == tuple(theirs.shape) == (2000, 3)
    np.testing.assert_array_equal(ours.sum(1).numpy(), np.full(2000, 10.0))
    np.testing.assert_allclose(ours.numpy().mean(0) / 10, p, atol=0.02)
    counts = [2.0, 3.0, 5.0]
    np.testing.assert_allclose(
        float(mint.distributions.Multinomial(10, mint.tensor(p)).log_prob(mint.tensor(counts))),
        float(torch.distributions.Multinomial(10, torch.tensor(p)).log_prob(torch.tensor(counts))),
        rtol=1e-5)


def test_categorical_like_torch():
    probs = [[0.1, 0.9], [0.7, 0.3]]
    d = mint.distributions.Categorical(probs=mint.tensor(probs))
    td = torch.distributions.Categorical(probs=torch.tensor(probs))
    s = d.sample((5000,))
    assert tuple(s.shape) == tuple(td.sample((5000,)).shape) == (5000, 2)
    np.testing.assert_allclose(s.numpy().mean(0), [0.9, 0.3], atol=0.03)
    v = [1, 0]
    np.testing.assert_allclose(d.log_prob(mint.tensor(v)).numpy(),
                               td.log_prob(torch.tensor(v)).numpy(), rtol=1e-5)
    np.testing.assert_allclose(d.entropy().numpy(), td.entropy().numpy(), rtol=1e-5)
    dl = mint.distributions.Categorical(logits=mint.tensor([0.0, 1.0, 2.0]))
    tl = torch.distributions.Categorical(logits=torch.tensor([0.0, 1.0, 2.0]))
    np.testing.assert_allclose(dl.probs.numpy(), tl.probs.numpy(), rtol=1e-5)


def test_normal_like_torch():
    d = mint.distributions.Normal(mint.tensor([0.0, 2.0]), mint.tensor([1.0, 0.5]))
    td = torch.distributions.Normal(torch.tensor([0.0, 2.0]), torch.tensor([1.0, 0.5]))
    x = [0.3, 1.0]
    np.testing.assert_allclose(d.log_prob(mint.tensor(x)).numpy(),
                               td.log_prob(torch.tensor(x)).numpy(), rtol=1e-5)
    np.testing.assert_allclose(d.entropy().numpy(), td.entropy().numpy(), rtol=1e-5)
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 2)
    np.testing.assert_allclose(s.numpy().mean(0), [0.0, 2.0], atol=0.03)
    np.testing.assert_allclose(s.numpy().std(0), [1.0, 0.5], atol=0.03)
    loc = mint.tensor([1.0], requires_grad=True)
    mint.distributions.Normal(loc, 1.0).rsample((3,)).sum().backward()
    assert float(loc.grad[0]) == 3.0
    with pytest.raises(ValueError, match="scale"):
        mint.distributions.Normal(0.0, -1.0)


def test_bernoulli_and_uniform_like_torch():
    b, tb = mint.distributions.Bernoulli(probs=mint.tensor([0.25])), \
        torch.distributions.Bernoulli(probs=torch.tensor([0.25]))
    for v in (0.0, 1.0):
        np.testing.assert_allclose(b.log_prob(mint.tensor([v])).numpy(),
                                   tb.log_prob(torch.tensor([v])).numpy(), rtol=1e-5)
    assert abs(float(b.sample((20000,)).mean()) - 0.25) < 0.02
    u, tu = mint.distributions.Uniform(1.0, 3.0), torch.distributions.Uniform(1.0, 3.0)
    np.testing.assert_allclose(float(u.log_prob(mint.tensor(2.0))),
                               float(tu.log_prob(torch.tensor(2.0))), rtol=1e-6)
    assert float(u.log_prob(mint.tensor(5.0))) == -math.inf
    s = u.sample((1000,))
    assert float(s.min()) >= 1.0 and float(s.max()) < 3.0


def test_generator_fixes_shuffle_and_split():
    def order(g):
        return [x.tolist() for x, _ in DataLoader(_ds(12), batch_size=12, shuffle=True,
                                                  generator=g)]
    tandem.manual_seed(0)
    a = order(mint.Generator().manual_seed(5))
    tandem.manual_seed(1)
    b = order(mint.Generator().manual_seed(5))
    assert a == b and sorted(a[0]) == list(range(12))
    s1 = [list(s.indices) for s in tandem.utils.data.random_split(
        list(range(10)), [3, 7], generator=mint.Generator().manual_seed(2))]
    s2 = [list(s.indices) for s in tandem.utils.data.random_split(
        list(range(10)), [3, 7], generator=mint.Generator().manual_seed(2))]
    assert s1 == s2
    with pytest.raises(TypeError, match="mint.Generator"):
        DataLoader(_ds(), generator=object())
