"""tandem.vision.ops (box_iou, nms, roi_pool), transforms on PIL images, mint.jit.script /
trace / save / load and nn.DataParallel on one device."""
import numpy as np
import pytest

from tandem import mint
from tandem.mint import nn
from tandem.vision import ops, transforms


def _iou_np(a, b):
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
    return inter / (area(a)[:, None] + area(b)[None] - inter)


def test_box_iou_and_nms():
    a = np.array([[0, 0, 2, 2], [1, 1, 3, 3], [10, 10, 11, 12]], dtype=np.float32)
    b = np.array([[0, 0, 1, 1], [0, 0, 2, 2]], dtype=np.float32)
    np.testing.assert_allclose(ops.box_iou(mint.tensor(a), mint.tensor(b)).numpy(),
                               _iou_np(a, b), rtol=1e-6)
    scores = mint.tensor([0.9, 0.8, 0.7])
    assert ops.nms(mint.tensor(a), scores, 0.1).tolist() == [0, 2]
    assert ops.nms(mint.tensor(a), scores, 0.5).tolist() == [0, 1, 2]
    assert ops.batched_nms(mint.tensor(a), scores, mint.tensor([0, 1, 0]), 0.1).tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="box_iou"):
        ops.box_iou(mint.ones(3), mint.ones(2, 4))


def test_roi_pool_values_and_grad():
    X = mint.arange(16.0).reshape(1, 1, 4, 4)
    X.requires_grad_(True)
    rois = mint.tensor([[0.0, 0, 0, 20, 20], [0, 0, 10, 30, 30]])
    out = ops.roi_pool(X, rois, output_size=(2, 2), spatial_scale=0.1)
    # worked by hand from torchvision's rounding rules
    assert out.tolist() == [[[[5.0, 6.0], [9.0, 10.0]]], [[[9.0, 11.0], [13.0, 15.0]]]]
    out.sum().backward()
    assert float(X.grad.sum()) == 8.0 and float(X.grad[0, 0, 3, 3]) == 1.0
    same = ops.roi_pool(X.detach(), [mint.tensor([[0.0, 0, 20, 20]])], 2, 0.1)
    assert same.tolist() == out[:1].tolist()


def test_transforms_on_pil_images_return_pil():
    from PIL import Image
    a = np.random.default_rng(0).integers(0, 255, (8, 12, 3), dtype=np.uint8)
    img = Image.fromarray(a)
    flipped = transforms.RandomHorizontalFlip(p=1.0)(img)
    assert isinstance(flipped, Image.Image)
    np.testing.assert_array_equal(np.asarray(flipped), a[:, ::-1])
    assert transforms.Resize((4, 6))(img).size == (6, 4)
    out = transforms.Compose([transforms.RandomVerticalFlip(1.0), transforms.ToTensor()])(img)
    np.testing.assert_allclose(out.numpy(), np.moveaxis(a[::-1], -1, 0) / 255.0, rtol=1e-6)


def test_jit_script_trace_save_load(tmp_path):
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x = mint.randn(3, 4)
    ref = net(x).detach().numpy()
    s = mint.jit.script(net)
    np.testing.assert_allclose(s(x).detach().numpy(), ref, rtol=1e-6)
    assert len(list(s.parameters())) == 4 and s.original is net
    path = s.save(str(tmp_path / "mlp.tdm"))
    np.testing.assert_allclose(mint.jit.load(path)(x).detach().numpy(), ref, rtol=1e-5)
    t = mint.jit.trace(net, x)
    np.testing.assert_allclose(t(x).detach().numpy(), ref, rtol=1e-6)
    with pytest.raises(RuntimeError, match="call the module once"):
        mint.jit.script(nn.Linear(2, 2)).save(str(tmp_path / "x.tdm"))
    with pytest.raises(TypeError, match="example_inputs"):
        mint.jit.trace(net)


def test_data_parallel_is_a_passthrough_on_cpu():
    net = nn.Linear(3, 2)
    dp = nn.DataParallel(net, device_ids=["cpu"])
    x = mint.randn(4, 3)
    np.testing.assert_array_equal(dp(x).detach().numpy(), net(x).detach().numpy())
    assert dp.module is net and list(dp.state_dict()) == ["module.weight", "module.bias"]
    with pytest.raises(RuntimeError, match="CPU"):
        nn.DataParallel(net, device_ids=[0, 1])


def test_image_folder_and_cifar10_from_local_files(tmp_path):
    import pickle
    from PIL import Image
    from tandem.vision import datasets
    for cls, n in (("dog", 2), ("cat", 1)):
        (tmp_path / "imgs" / cls).mkdir(parents=True)
        for i in range(n):
            Image.fromarray(np.full((4, 5, 3), 40 * i, np.uint8)).save(tmp_path / "imgs" / cls / f"{i}.png")
    ds = datasets.ImageFolder(str(tmp_path / "imgs"), transform=transforms.ToTensor())
    assert ds.classes == ["cat", "dog"] and len(ds) == 3 and ds.targets == [0, 1, 1]
    x, y = ds[2]
    assert tuple(x.shape) == (3, 4, 5) and y == 1
    folder = tmp_path / "c" / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    raw = np.arange(2 * 3072, dtype=np.int64).astype(np.uint8).reshape(2, 3072)
    with open(folder / "test_batch", "wb") as f:
        pickle.dump({"data": raw, "labels": [3, 7]}, f)
    c = datasets.CIFAR10(str(tmp_path / "c"), train=False)
    img, lab = c[1]
    assert lab == 7 and img.size == (32, 32)
    np.testing.assert_array_equal(np.asarray(img)[..., 0].ravel(), raw[1, :1024])
    with pytest.raises(RuntimeError, match="never downloads"):
        datasets.CIFAR10(str(tmp_path / "c"), train=True, download=True)


def test_resnet18_has_torchvision_names_and_loads_a_pt_file(tmp_path):
    torch = pytest.importorskip("torch")
    from tandem.vision import models
    net = models.resnet18(num_classes=10)
    names = list(net.state_dict())
    assert names[:6] == ["conv1.weight", "bn1.weight", "bn1.bias", "bn1.running_mean",
                         "bn1.running_var", "bn1.num_batches_tracked"]
    assert "layer2.0.downsample.0.weight" in names and names[-2:] == ["fc.weight", "fc.bias"]
    # a state dict written by torch (random values, torchvision's key names) loads by name
    sd = {k: torch.tensor(np.random.default_rng(0).standard_normal(tuple(v.shape)).astype(np.float32))
          if v.dtype == mint.float32 else torch.zeros((), dtype=torch.int64)
          for k, v in net.state_dict().items()}
    torch.save(sd, tmp_path / "r18.pth")
    loaded = models.resnet18(num_classes=10, weights=str(tmp_path / "r18.pth"))
    np.testing.assert_array_equal(loaded.fc.weight.detach().numpy(), sd["fc.weight"].numpy())
    assert tuple(loaded.eval()(mint.rand(1, 3, 64, 64)).shape) == (1, 10)
    with pytest.raises(RuntimeError, match="not downloaded"):
        models.resnet18(pretrained=True)


@pytest.mark.parametrize("name,params", [("vgg11", 132_863_336), ("vgg16", 138_357_544),
                                         ("vgg19", 143_667_240), ("vgg16_bn", 138_365_992)])
def test_vgg_has_torchvision_structure(name, params):
    """Parameter counts as torchvision publishes them pin the layer plan; the keys follow
    torchvision's indices (the book's neural style transfer picks vgg19().features[i])."""
    from tandem.vision import models
    net = getattr(models, name)(init_weights=False)
    assert sum(int(p.numel()) for p in net.parameters()) == params
    keys = list(net.state_dict())
    assert keys[:2] == ["features.0.weight", "features.0.bias"]
    assert keys[-6:] == ["classifier.0.weight", "classifier.0.bias", "classifier.3.weight",
                         "classifier.3.bias", "classifier.6.weight", "classifier.6.bias"]
    if name == "vgg19":  # the style layers of the book: conv1_1 .. conv5_1, content conv4_2
        convs = [i for i, m in enumerate(net.features) if isinstance(m, mint.nn.Conv2d)]
        assert [0, 5, 10, 19, 28] == [convs[k] for k in (0, 2, 4, 8, 12)]
        assert convs[9] == 21 and len(net.features) == 37


def test_vgg_forward_matches_torch_with_the_same_weights():
    torch = pytest.importorskip("torch")
    from tandem.vision import models
    net = models.vgg11_bn(num_classes=5).eval()
    ref = torch.nn.Sequential()
    plan = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]
    layers, c = [], 3
    for v in plan:
        if v == "M":
            layers.append(torch.nn.MaxPool2d(2, 2))
        else:
            layers += [torch.nn.Conv2d(c, v, 3, padding=1), torch.nn.BatchNorm2d(v),
                       torch.nn.ReLU(True)]
            c = v
    ref = torch.nn.ModuleDict({"features": torch.nn.Sequential(*layers),
                               "classifier": torch.nn.Sequential(
                                   torch.nn.Linear(512 * 49, 4096), torch.nn.ReLU(True),
                                   torch.nn.Dropout(), torch.nn.Linear(4096, 4096),
                                   torch.nn.ReLU(True), torch.nn.Dropout(),
                                   torch.nn.Linear(4096, 5))}).eval()
    sd = {k: torch.tensor(v.detach().numpy()) for k, v in net.state_dict().items()}
    rng = np.random.default_rng(1)
    for k in sd:
        if "running_var" in k:
            sd[k] = torch.tensor(rng.uniform(0.5, 2, tuple(sd[k].shape)).astype(np.float32))
        elif "running_mean" in k or ("features" in k and k.endswith("bias")):
            sd[k] = torch.tensor(rng.normal(0, 0.1, tuple(sd[k].shape)).astype(np.float32))
    ref.load_state_dict(sd)
    loaded = net
    loaded.load_state_dict({k: mint.tensor(v.numpy()) for k, v in sd.items()})
    x = rng.standard_normal((2, 3, 40, 40)).astype(np.float32)
    with torch.no_grad():
        t = ref["features"](torch.tensor(x))
        want = ref["classifier"](torch.nn.functional.adaptive_avg_pool2d(t, 7).flatten(1))
    got = loaded(mint.tensor(x)).detach().numpy()
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(RuntimeError, match="not downloaded"):
        models.vgg19(pretrained=True)
