"""Exact rewrites of exported ONNX graphs that ONNX Runtime does not make itself, so PP-OCR's models run faster
with the same results (to float rounding).

PP-OCR's PP-LCNetV3 backbone, as exported from Paddle, follows each convolution with a learnable scalar affine
(`Mul`, `Add`), a hard-swish spelled out as `x * Clip(x + 3, 0, 6) / 6`, and another scalar affine. ONNX Runtime
leaves all of that as element-wise nodes between its blocked (NCHWc) convolutions, each costing a pass over the
feature map and a layout reorder on either side. Here:

- an affine after a convolution goes into the convolution's weights and bias;
- the spelled-out hard-swish becomes one `HardSwish` node, which ONNX Runtime fuses into the convolution before it;
- an affine whose only readers are unpadded convolutions goes into their weights and bias (with padding it cannot:
  the zeros padded in would no longer be zeros after the affine).

Every rewrite checks its pattern exactly (constants, single readers), so a graph of another shape is left as it is.

deskpilot's own detectors (the UI detector, the text-line detector) take an image as float planes in [0, 1]; their
sessions are given the screen's bytes instead (`byte_input`): the conversion runs inside the model, on ONNX Runtime's
threads or on the GPU, and a quarter of the data crosses to a GPU (exactly the same values: a byte divided by 255).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from onnx import ModelProto, NodeProto

HARD_SWISH_OPSET = 14  # the first opset with HardSwish
BYTE_INPUT = "image"  # the input `byte_input` rewrites (deskpilot's detectors')


class _Graph:
    """The nodes of one graph with their constants and readers, and the rewrites' bookkeeping."""

    def __init__(self, model: ModelProto) -> None:
        from onnx import numpy_helper

        self.model = model
        self.graph = model.graph
        self.constants: dict[str, np.ndarray] = {i.name: numpy_helper.to_array(i) for i in self.graph.initializer}
        for node in self.graph.node:
            if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
                self.constants[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
        self.outputs = {o.name for o in self.graph.output}
        self.readers: dict[str, list[NodeProto]] = {}
        self.producer: dict[str, NodeProto] = {}
        self.dropped: set[int] = set()  # nodes the rewrite under way removes
        self.renamed: dict[str, str] = {}  # outputs it removes -> what their readers read instead
        self.refresh()

    def refresh(self) -> None:
        """Apply the rewrite just made (drop its nodes, rewire their readers) and index the nodes again."""
        if self.dropped:
            kept = [node for node in self.graph.node if id(node) not in self.dropped]
            for node in kept:
                for index, name in enumerate(node.input):
                    while name in self.renamed:
                        name = self.renamed[name]
                    node.input[index] = name
            del self.graph.node[:]
            self.graph.node.extend(kept)
        self.readers = defaultdict(list)
        for node in self.graph.node:
            for name in node.input:
                self.readers[name].append(node)
        self.producer = {name: node for node in self.graph.node for name in node.output}
        self.dropped, self.renamed = set(), {}

    def scalar(self, name: str) -> float | None:
        value = self.constants.get(name)
        return float(value.ravel()[0]) if value is not None and value.size == 1 else None

    def only_reader(self, name: str, op_type: str) -> NodeProto | None:
        """The node that alone reads `name`, if it is an `op_type` and `name` is no graph output."""
        readers = self.readers.get(name, [])
        if len(readers) == 1 and readers[0].op_type == op_type and name not in self.outputs:
            return readers[0]
        return None

    def other_input(self, node: NodeProto, name: str) -> str:
        """The input of a two-input node that is not `name` (`name` itself for `Mul(x, x)`)."""
        return next((i for i in node.input if i != name), name)

    def scalar_affine(self, name: str) -> tuple[float, float, NodeProto, NodeProto | None] | None:
        """(scale, shift, Mul node, Add node or None) for `Mul(name, c)` optionally followed by `Add(., d)`, c and d
        scalar constants; None when `name` is not read that way alone."""
        mul = self.only_reader(name, "Mul")
        if mul is None or (scale := self.scalar(self.other_input(mul, name))) is None:
            return None
        add = self.only_reader(mul.output[0], "Add")
        shift = self.scalar(self.other_input(add, mul.output[0])) if add is not None else None
        return (scale, shift, mul, add) if shift is not None else (scale, 0.0, mul, None)

    def new_name(self, stem: str) -> str:
        """`stem` with the first number that makes it no constant's name yet (a convolution may take two folds)."""
        number = 1
        while f"{stem}{number}" in self.constants:
            number += 1
        return f"{stem}{number}"

    def set_weights(self, conv: NodeProto, weight: np.ndarray, bias: np.ndarray) -> None:
        from onnx import numpy_helper

        names = tuple(self.new_name(f"{conv.output[0]}__{part}") for part in ("weight", "bias"))
        for name, value in zip(names, (weight, bias)):
            self.constants[name] = value.astype(np.float32)
            self.graph.initializer.append(numpy_helper.from_array(self.constants[name], name))
        del conv.input[1:]
        conv.input.extend(names)

    def conv_weights(self, conv: NodeProto) -> tuple[np.ndarray, np.ndarray] | None:
        weight = self.constants.get(conv.input[1]) if len(conv.input) > 1 else None
        if weight is None:
            return None
        bias = self.constants.get(conv.input[2]) if len(conv.input) > 2 else np.zeros(weight.shape[0], np.float32)
        return (weight, bias) if bias is not None else None

    def drop(self, *nodes: NodeProto | None) -> None:
        self.dropped.update(id(node) for node in nodes if node is not None)


def _affines_into_convs_before(graph: _Graph) -> None:
    """`Conv -> Mul(c) [-> Add(d)]` becomes the Conv with weight c*W and bias c*b + d."""
    for conv in list(graph.graph.node):
        if conv.op_type != "Conv" or id(conv) in graph.dropped or (weights := graph.conv_weights(conv)) is None:
            continue
        affine = graph.scalar_affine(conv.output[0])
        if affine is None:
            continue
        scale, shift, mul, add = affine
        weight, bias = weights
        graph.set_weights(conv, weight * scale, bias * scale + shift)
        graph.drop(mul, add)
        graph.renamed[(add or mul).output[0]] = conv.output[0]


def _hard_swishes(graph: _Graph) -> None:
    """`Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6)` becomes `HardSwish(x)`."""
    for clip in list(graph.graph.node):
        if clip.op_type != "Clip" or len(clip.input) != 3:
            continue
        low, high = graph.scalar(clip.input[1]), graph.scalar(clip.input[2])
        plus = graph.producer.get(clip.input[0])
        if (low, high) != (0.0, 6.0) or plus is None or plus.op_type != "Add" or \
                len(graph.readers[plus.output[0]]) != 1:
            continue
        constant = [name for name in plus.input if graph.scalar(name) is not None]
        if len(constant) != 1 or graph.scalar(constant[0]) != 3.0:
            continue
        x = graph.other_input(plus, constant[0])
        mul = graph.only_reader(clip.output[0], "Mul")
        if mul is None or graph.other_input(mul, clip.output[0]) != x:
            continue
        div = graph.only_reader(mul.output[0], "Div")
        if div is None or div.input[0] != mul.output[0] or graph.scalar(div.input[1]) != 6.0:
            continue
        div.op_type = "HardSwish"
        del div.input[:]
        div.input.append(x)
        graph.drop(plus, clip, mul)


def _affines_into_convs_after(graph: _Graph) -> None:
    """`Mul(c) [-> Add(d)]` read only by unpadded Convs (e.g. after an activation, where nothing before can take
    it) goes into each: weight c*W, bias b + d * (the sum of W over its inputs)."""
    for source in list(graph.graph.node):
        if id(source) in graph.dropped:
            continue
        affine = graph.scalar_affine(source.output[0])
        if affine is None:
            continue
        scale, shift, mul, add = affine
        last = (add or mul).output[0]
        convs = graph.readers.get(last, [])
        if not convs or last in graph.outputs or any(
                conv.op_type != "Conv" or _padded(conv) or graph.conv_weights(conv) is None for conv in convs):
            continue
        for conv in convs:
            weight, bias = graph.conv_weights(conv)  # type: ignore[misc]
            graph.set_weights(conv, weight * scale, bias + shift * weight.reshape(weight.shape[0], -1).sum(axis=1))
        graph.drop(mul, add)
        graph.renamed[last] = source.output[0]


def _padded(conv: NodeProto) -> bool:
    from onnx import helper

    for attribute in conv.attribute:
        if attribute.name == "pads" and any(helper.get_attribute_value(attribute)):
            return True
        if attribute.name == "auto_pad" and helper.get_attribute_value(attribute) not in (b"NOTSET", b"VALID"):
            return True
    return False


def simplified(path: Path) -> bytes:
    """The model at `path`, rewritten as above, serialised for `onnxruntime.InferenceSession`."""
    import onnx
    from onnx import version_converter

    model = onnx.load(str(path))
    if next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0) < HARD_SWISH_OPSET:
        model = version_converter.convert_version(model, HARD_SWISH_OPSET)
    graph = _Graph(model)  # the constants read once; nodes indexed again after each rewrite
    for rewrite in (_affines_into_convs_before, _hard_swishes, _affines_into_convs_after):
        rewrite(graph)
        graph.refresh()
    return bytes(model.SerializeToString())


def byte_input(path: Path) -> bytes:
    """The model at `path`, whose input `image` is float planes (1 x 3 x H x W, values in [0, 1]), taking the image's
    bytes instead (1 x H x W x 3 uint8, RGB as the screen gives them): Transpose, Cast and Div by 255 before its first
    layers. A model with another input is an error (ValueError), not rewritten."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    given = next((i for i in graph.input if i.name == BYTE_INPUT), None)
    dims = list(given.type.tensor_type.shape.dim) if given is not None else []
    if given is None or given.type.tensor_type.elem_type != TensorProto.FLOAT or len(dims) != 4 or \
            dims[1].dim_value != 3:
        raise ValueError(f"its input is not {BYTE_INPUT!r} as float planes of 3 channels")
    planes = f"{BYTE_INPUT}__planes"
    for node in graph.node:
        node.input[:] = [planes if name == BYTE_INPUT else name for name in node.input]
    height, width = (d.dim_param or d.dim_value or None for d in dims[2:])
    graph.input.remove(given)
    graph.input.insert(0, helper.make_tensor_value_info(BYTE_INPUT, TensorProto.UINT8, [1, height, width, 3]))
    graph.initializer.append(numpy_helper.from_array(np.array(255.0, np.float32), f"{BYTE_INPUT}__255"))
    graph.node.insert(0, helper.make_node("Div", [f"{BYTE_INPUT}__float", f"{BYTE_INPUT}__255"], [planes]))
    graph.node.insert(0, helper.make_node("Cast", [f"{BYTE_INPUT}__bytes"], [f"{BYTE_INPUT}__float"],
                                          to=TensorProto.FLOAT))
    graph.node.insert(0, helper.make_node("Transpose", [BYTE_INPUT], [f"{BYTE_INPUT}__bytes"], perm=[0, 3, 1, 2]))
    return bytes(model.SerializeToString())
