"""The text-line recogniser network in plain PyTorch: a small CNN that takes a LINE_HEIGHT-pixel grey line down to
one row of columns (COLUMN_STRIDE input pixels each), residual 1-D convolutions dilated 1, 2 and 4 for context along
the line (about 30 columns each way), and per column the probabilities of each character and the CTC blank."""

from __future__ import annotations

import torch
from torch import nn

from deskpilot.grounding.text_recognizer import COLUMN_STRIDE, LINE_HEIGHT


def conv_bn(inputs: int, outputs: int, stride: tuple[int, int] = (1, 1),
            kernel: tuple[int, int] = (3, 3)) -> nn.Sequential:
    padding = ((kernel[0] - 1) // 2, (kernel[1] - 1) // 2)
    return nn.Sequential(nn.Conv2d(inputs, outputs, kernel, stride, padding, bias=False), nn.BatchNorm2d(outputs),
                         nn.ReLU(inplace=True))


class LineRecognizerNet(nn.Module):
    """`width` channels in the first layer, up to 8x that before the column head; `classes` includes the blank."""

    def __init__(self, classes: int, width: int = 16):
        super().__init__()
        assert LINE_HEIGHT == 32 and COLUMN_STRIDE == 4, "the layer strides below assume these"
        self.width, self.classes = width, classes
        w = width
        self.features = nn.Sequential(
            conv_bn(1, w, (2, 2)),  # 16 x W/2
            conv_bn(w, 2 * w, (2, 2)),  # 8 x W/4
            conv_bn(2 * w, 3 * w),
            conv_bn(3 * w, 4 * w, (2, 1)),  # 4 x W/4
            conv_bn(4 * w, 4 * w),
            conv_bn(4 * w, 6 * w, (2, 1)),  # 2 x W/4
            conv_bn(6 * w, 8 * w, kernel=(2, 3)),  # 1 x W/4
        )
        self.context = nn.ModuleList(nn.Sequential(nn.Conv1d(8 * w, 8 * w, 3, padding=d, dilation=d),
                                                   nn.BatchNorm1d(8 * w), nn.ReLU(inplace=True)) for d in (1, 2, 4))
        self.head = nn.Conv1d(8 * w, classes, 1)

    def forward(self, lines: torch.Tensor) -> torch.Tensor:
        """N x 1 x LINE_HEIGHT x W -> logits, N x classes x W/COLUMN_STRIDE."""
        columns = self.features(lines).squeeze(2)
        for layer in self.context:
            columns = columns + layer(columns)
        return self.head(columns)


class ColumnProbabilities(nn.Module):
    """The network as grounding runs it (and ONNX holds it): probabilities, N x columns x classes."""

    def __init__(self, net: LineRecognizerNet):
        super().__init__()
        self.net = net

    def forward(self, lines: torch.Tensor) -> torch.Tensor:
        return self.net(lines).softmax(1).transpose(1, 2)
