"""torchvision.models' ResNets and VGGs for tandem: the same module names and shapes as
torchvision's (ResNet: conv1, bn1, layer1..layer4 of BasicBlock/Bottleneck, fc; VGG:
features, avgpool, classifier), so a torchvision state dict read with ``mint.load`` loads
into them. Nothing is downloaded: ``pretrained=True`` / ``weights=``
needs a local weights file (``weights='path.pth'``)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Type, TypeVar, Union

from ..mint import nn

__all__ = ["ResNet", "BasicBlock", "Bottleneck", "resnet18", "resnet34", "resnet50", "VGG",
           "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]


class BasicBlock(nn.Module):
    """Two 3x3 convolutions with batch norm and a shortcut (ResNet-18/34).

    Args:
        inplanes (int): input channels.
        planes (int): output channels.
        stride (int): stride of the first convolution. Default: ``1``.
        downsample (Module, optional): the shortcut projection. Default: ``None``.
    """

    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1,
                 downsample: Optional[nn.Module] = None) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x: Any) -> Any:
        """relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)).

        Args:
            x (Tensor): (N, C, H, W).

        Returns:
            Tensor: the block's output.
        """
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = self.downsample(x) if self.downsample is not None else x
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    """1x1, 3x3, 1x1 convolutions with batch norm and a shortcut (ResNet-50).

    Args:
        inplanes (int): input channels.
        planes (int): bottleneck channels (output is 4x).
        stride (int): stride of the 3x3 convolution. Default: ``1``.
        downsample (Module, optional): the shortcut projection. Default: ``None``.
    """

    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1,
                 downsample: Optional[nn.Module] = None) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU()
        self.downsample = downsample

    def forward(self, x: Any) -> Any:
        """The bottleneck block's output.

        Args:
            x (Tensor): (N, C, H, W).

        Returns:
            Tensor: the block's output.
        """
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = self.downsample(x) if self.downsample is not None else x
        return self.relu(out + identity)


class ResNet(nn.Module):
    """torchvision's ResNet.

    Args:
        block (type): BasicBlock or Bottleneck.
        layers (list[int]): blocks per stage.
        num_classes (int): outputs of fc. Default: ``1000``.
    """

    def __init__(self, block: Type[Union[BasicBlock, Bottleneck]], layers: List[int],
                 num_classes: int = 1000) -> None:
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = self._stage(block, 64, layers[0], 1)
        self.layer2 = self._stage(block, 128, layers[1], 2)
        self.layer3 = self._stage(block, 256, layers[2], 2)
        self.layer4 = self._stage(block, 512, layers[3], 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _stage(self, block: Any, planes: int, n: int, stride: int) -> nn.Sequential:
        down = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            down = nn.Sequential(nn.Conv2d(self.inplanes, planes * block.expansion, 1,
                                           stride=stride, bias=False),
                                 nn.BatchNorm2d(planes * block.expansion))
        blocks = [block(self.inplanes, planes, stride, down)]
        self.inplanes = planes * block.expansion
        blocks += [block(self.inplanes, planes) for _ in range(1, n)]
        return nn.Sequential(*blocks)

    def forward(self, x: Any) -> Any:
        """Class scores.

        Args:
            x (Tensor): (N, 3, H, W) images.

        Returns:
            Tensor: (N, num_classes).
        """
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.avgpool(x).flatten(1))


def _build(name: str, block: Any, layers: List[int], pretrained: bool, weights: Any,
           kwargs: Any) -> ResNet:
    return _with_weights(name, ResNet(block, layers, **kwargs), pretrained, weights)


_Net = TypeVar("_Net", bound=nn.Module)


def _with_weights(name: str, net: _Net, pretrained: bool, weights: Any) -> _Net:
    if weights is None and not pretrained:
        return net
    if not isinstance(weights, str):
        raise RuntimeError(f"vision.models.{name}: pretrained weights are not downloaded (no "
                           f"network); pass weights='path/to/{name}.pth' (a torchvision "
                           f"state dict file) instead")
    from ..serialization import load
    net.load_state_dict(load(weights))
    return net


def resnet18(pretrained: bool = False, weights: Any = None, progress: bool = True,
             **kwargs: Any) -> ResNet:
    """ResNet-18.

    Args:
        pretrained (bool): load pretrained weights (needs ``weights=`` a local file).
            Default: ``False``.
        weights (str, optional): a local torchvision state dict file. Default: ``None``.
        progress (bool): ignored. Default: ``True``.
        **kwargs: ResNet's arguments (num_classes).

    Returns:
        ResNet: the network.
    """
    return _build("resnet18", BasicBlock, [2, 2, 2, 2], pretrained, weights, kwargs)


def resnet34(pretrained: bool = False, weights: Any = None, progress: bool = True,
             **kwargs: Any) -> ResNet:
    """ResNet-34.

    Args:
        pretrained (bool): load pretrained weights (needs ``weights=`` a local file).
            Default: ``False``.
        weights (str, optional): a local torchvision state dict file. Default: ``None``.
        progress (bool): ignored. Default: ``True``.
        **kwargs: ResNet's arguments (num_classes).

    Returns:
        ResNet: the network.
    """
    return _build("resnet34", BasicBlock, [3, 4, 6, 3], pretrained, weights, kwargs)


def resnet50(pretrained: bool = False, weights: Any = None, progress: bool = True,
             **kwargs: Any) -> ResNet:
    """ResNet-50.

    Args:
        pretrained (bool): load pretrained weights (needs ``weights=`` a local file).
            Default: ``False``.
        weights (str, optional): a local torchvision state dict file. Default: ``None``.
        progress (bool): ignored. Default: ``True``.
        **kwargs: ResNet's arguments (num_classes).

    Returns:
        ResNet: the network.
    """
    return _build("resnet50", Bottleneck, [3, 4, 6, 3], pretrained, weights, kwargs)


# VGG layer plans (torchvision's configurations A, B, D, E): output channels of each 3x3
# convolution, "M" for a 2x2 max pool.
_VGG_PLANS: Dict[str, List[Union[int, str]]] = {
    "vgg11": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "vgg13": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "vgg16": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512,
              "M"],
    "vgg19": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512,
              512, 512, 512, "M"],
}


class VGG(nn.Module):
    """VGG: ``features`` (3x3 convolutions, optional batch norm, ReLU, max pools), a 7x7
    adaptive average pool and a three-layer ``classifier`` with dropout; torchvision's
    initialisation (Kaiming-normal convolutions, N(0, 0.01) linear layers).

    Args:
        features (Sequential): the convolutional part (see ``make_layers``).
        num_classes (int): outputs of the last linear layer. Default: ``1000``.
        init_weights (bool): apply torchvision's initialisation. Default: ``True``.
        dropout (float): dropout probability of the classifier. Default: ``0.5``.
    """

    def __init__(self, features: nn.Sequential, num_classes: int = 1000,
                 init_weights: bool = True, dropout: float = 0.5) -> None:
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes))
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.zeros_(m.bias)
                elif isinstance(m, nn.BatchNorm2d) and m.weight is not None \
                        and m.bias is not None:
                    nn.init.ones_(m.weight)
                    nn.init.zeros_(m.bias)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    if m.bias is not None:
                        nn.init.zeros_(m.bias)

    def forward(self, x: Any) -> Any:
        """Class scores.

        Args:
            x (Tensor): (N, 3, H, W) images (H, W >= 32).

        Returns:
            Tensor: (N, num_classes).
        """
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


def make_layers(plan: List[Union[int, str]], batch_norm: bool = False) -> nn.Sequential:
    """VGG's convolutional part from a plan of channel counts and "M" (max pool).

    Args:
        plan (list): e.g. ``[64, "M", 128, "M"]``.
        batch_norm (bool): a BatchNorm2d after each convolution. Default: ``False``.

    Returns:
        Sequential: the layers, indexed as torchvision's.
    """
    layers: List[nn.Module] = []
    channels = 3
    for v in plan:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2d(channels, int(v), kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2d(int(v)))
        layers.append(nn.ReLU(True))
        channels = int(v)
    return nn.Sequential(*layers)


def _vgg(name: str, batch_norm: bool, pretrained: bool, weights: Any, kwargs: Any) -> VGG:
    if pretrained or weights is not None:
        kwargs.setdefault("init_weights", False)
    net = VGG(make_layers(_VGG_PLANS[name], batch_norm), **kwargs)
    return _with_weights(name + ("_bn" if batch_norm else ""), net, pretrained, weights)


def _vgg_builder(name: str, batch_norm: bool) -> Callable[..., VGG]:
    depth = name[3:]

    def build(pretrained: bool = False, weights: Any = None, progress: bool = True,
              **kwargs: Any) -> VGG:
        return _vgg(name, batch_norm, pretrained, weights, kwargs)

    build.__name__ = build.__qualname__ = name + ("_bn" if batch_norm else "")
    build.__doc__ = f"""VGG-{depth}{' with batch norm' if batch_norm else ''}.

    Args:
        pretrained (bool): load pretrained weights (needs ``weights=`` a local file).
            Default: ``False``.
        weights (str, optional): a local torchvision state dict file. Default: ``None``.
        progress (bool): ignored. Default: ``True``.
        **kwargs: VGG's arguments (num_classes, init_weights, dropout).

    Returns:
        VGG: the network.
    """
    return build


vgg11, vgg11_bn = _vgg_builder("vgg11", False), _vgg_builder("vgg11", True)
vgg13, vgg13_bn = _vgg_builder("vgg13", False), _vgg_builder("vgg13", True)
vgg16, vgg16_bn = _vgg_builder("vgg16", False), _vgg_builder("vgg16", True)
vgg19, vgg19_bn = _vgg_builder("vgg19", False), _vgg_builder("vgg19", True)
