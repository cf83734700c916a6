"""The UI-element detector network in plain PyTorch (no torchvision): a light CNN backbone down to 1/32, a small
feature pyramid back up to 1/4, and an anchor-free centre head (CenterNet style): per class a heat map peaking at
element centres, and per cell the distances to the four box sides (grounding.detector.decode turns them into
boxes)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from deskpilot.grounding.detector import STRIDE

MAX_LOG_DISTANCE = 6.0  # exp(6) * STRIDE: sides up to ~1600 input pixels from a centre


def conv_bn(inputs: int, outputs: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False), nn.BatchNorm2d(outputs),
                         nn.ReLU(inplace=True))


class SeparableBlock(nn.Module):
    """Depthwise 3x3 then pointwise 1x1, with a residual connection."""

    def __init__(self, channels: int, dilation: int = 1):
        super().__init__()
        self.depthwise = nn.Conv2d(channels, channels, 3, 1, dilation, dilation=dilation, groups=channels,
                                   bias=False)
        self.pointwise = nn.Conv2d(channels, channels, 1, bias=False)
        self.norm = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(x + self.norm(self.pointwise(self.depthwise(x))))


class UiDetectorNet(nn.Module):
    """`width` scales every stage's channels; outputs (scores: B x C x H/4 x W/4, ltrb: B x 4 x H/4 x W/4 in input
    pixels) in eval mode, raw (heat logits, log distances) in training mode."""

    def __init__(self, classes: int, width: int = 16):
        super().__init__()
        self.width = width
        c1, c2, c3, c4, c5 = width, 2 * width, 4 * width, 6 * width, 8 * width
        self.stem = conv_bn(3, c1, 2)
        self.stage4 = nn.Sequential(conv_bn(c1, c2, 2), SeparableBlock(c2))
        self.stage8 = nn.Sequential(conv_bn(c2, c3, 2), SeparableBlock(c3), SeparableBlock(c3))
        self.stage16 = nn.Sequential(conv_bn(c3, c4, 2), SeparableBlock(c4), SeparableBlock(c4, 2))
        self.stage32 = nn.Sequential(conv_bn(c4, c5, 2), SeparableBlock(c5), SeparableBlock(c5, 2))
        neck = 3 * width
        self.lateral = nn.ModuleList(nn.Conv2d(c, neck, 1) for c in (c2, c3, c4, c5))
        self.smooth = nn.Sequential(SeparableBlock(neck), SeparableBlock(neck))
        self.heat = nn.Conv2d(neck, classes, 1)
        self.distance = nn.Conv2d(neck, 4, 1)
        nn.init.constant_(self.heat.bias, -4.6)  # start every cell near "nothing here" (p ~ 0.01)

    def forward(self, image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f4 = self.stage4(self.stem(image))
        f8 = self.stage8(f4)
        f16 = self.stage16(f8)
        f32 = self.stage32(f16)
        top = self.lateral[3](f32)
        for feature, lateral in ((f16, self.lateral[2]), (f8, self.lateral[1]), (f4, self.lateral[0])):
            top = lateral(feature) + F.interpolate(top, size=feature.shape[-2:], mode="nearest")
        features = self.smooth(top)
        heat, log_distance = self.heat(features), self.distance(features)
        if self.training:
            return heat, log_distance
        return torch.sigmoid(heat), torch.exp(log_distance.clamp(-2.0, MAX_LOG_DISTANCE)) * STRIDE
