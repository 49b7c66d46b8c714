"""torchvision.models' ResNets for tandem: the same module names and shapes as torchvision's
(conv1, bn1, layer1..layer4 of BasicBlock/Bottleneck, fc), so a torchvision state dict read
with ``mint.load`` loads into them. Nothing is downloaded: ``pretrained=True`` / ``weights=``
needs a local weights file (``weights='path.pth'``)."""
from __future__ import annotations

from typing import Any, List, Optional, Type, Union

from ..mint import nn

__all__ = ["ResNet", "BasicBlock", "Bottleneck", "resnet18", "resnet34", "resnet50"]


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
    net = ResNet(block, layers, **kwargs)
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
