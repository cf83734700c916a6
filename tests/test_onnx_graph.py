"""The exact graph rewrites grounding applies to PP-OCR's models: the same outputs with fewer nodes, a hard-swish
fused, and nothing folded where it would change the result (a padded convolution after an affine); the rewrite
made once and kept on disk."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from deskpilot.grounding.ocr import REC_MODEL, models_dir
from deskpilot.grounding.onnx_graph import simplified
from deskpilot.grounding.onnx_session import open_session, rewrite_cache_dir, rewritten


def _constant(name: str, value: np.ndarray):  # noqa: ANN202
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(value.astype(np.float32), name))


def _lcnet_block(path) -> None:  # noqa: ANN001
    """PP-LCNetV3's shape, as Paddle exports it: conv, scalar affine, spelled-out hard-swish, scalar affine, then an
    unpadded (foldable) and a padded (not foldable) convolution reading that affine."""
    rng = np.random.default_rng(0)
    nodes = [_constant(name, np.array([value])) for name, value in
             (("a", 1.3), ("b", -0.2), ("three", 3.0), ("zero", 0.0), ("six", 6.0), ("c", 0.7), ("d", 0.4))]
    nodes += [
        helper.make_node("Conv", ["x", "w1", "b1"], ["conv1"], pads=[1, 1, 1, 1]),
        helper.make_node("Mul", ["a", "conv1"], ["scaled"]),
        helper.make_node("Add", ["scaled", "b"], ["shifted"]),
        helper.make_node("Add", ["shifted", "three"], ["plus"]),
        helper.make_node("Clip", ["plus", "zero", "six"], ["clipped"]),
        helper.make_node("Mul", ["shifted", "clipped"], ["product"]),
        helper.make_node("Div", ["product", "six"], ["swished"]),
        helper.make_node("Mul", ["c", "swished"], ["scaled2"]),
        helper.make_node("Add", ["scaled2", "d"], ["shifted2"]),
        helper.make_node("Conv", ["shifted2", "w2"], ["pointwise"]),
        helper.make_node("Conv", ["pointwise", "w3", "b3"], ["depthwise"], pads=[1, 1, 1, 1], group=6),
        helper.make_node("Relu", ["depthwise"], ["relu"]),
        helper.make_node("Mul", ["relu", "c"], ["scaled3"]),  # read by a padded conv: must stay
        helper.make_node("Add", ["scaled3", "d"], ["shifted3"]),
        helper.make_node("Conv", ["shifted3", "w4"], ["y"], pads=[1, 1, 1, 1]),
    ]
    weights = [numpy_helper.from_array(rng.normal(size=shape).astype(np.float32), name) for name, shape in
               (("w1", (4, 3, 3, 3)), ("b1", (4,)), ("w2", (6, 4, 1, 1)), ("w3", (6, 1, 3, 3)), ("b3", (6,)),
                ("w4", (2, 6, 3, 3)))]
    graph = helper.make_graph(nodes, "lcnet", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                             [1, 3, 12, 20])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], weights)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)]), str(path))


def test_an_lcnet_block_runs_the_same_with_the_affines_folded_and_the_hard_swish_fused(tmp_path):
    path = tmp_path / "block.onnx"
    _lcnet_block(path)
    model = onnx.load_from_string(simplified(path))
    kinds = [node.op_type for node in model.graph.node if node.op_type != "Constant"]
    # The last affine feeds a padded convolution: it stays.
    assert kinds == ["Conv", "HardSwish", "Conv", "Conv", "Relu", "Mul", "Add", "Conv"]
    image = np.random.default_rng(1).normal(size=(1, 3, 12, 20)).astype(np.float32) * 3
    plain = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rewritten = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected, got = plain.run(None, {"x": image})[0], rewritten.run(None, {"x": image})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_pp_ocrs_recogniser_reads_the_same_from_its_simplified_graph():
    path = models_dir() / REC_MODEL
    before = onnx.load(str(path))
    after = onnx.load_from_string(simplified(path))
    counted = [sum(node.op_type != "Constant" for node in m.graph.node) for m in (before, after)]
    assert counted[1] < 0.7 * counted[0]
    assert sum(node.op_type == "HardSwish" for node in after.graph.node) >= 20
    line = np.random.default_rng(2).uniform(-1, 1, size=(2, 3, 48, 320)).astype(np.float32)
    plain, rewritten = open_session(path, "cpu"), open_session(path, "cpu", rewrite=simplified)
    assert rewritten.get_modelmeta().custom_metadata_map["character"] == \
        plain.get_modelmeta().custom_metadata_map["character"]
    expected, got = plain.run(None, {"x": line})[0], rewritten.run(None, {"x": line})[0]
    np.testing.assert_allclose(got, expected, atol=1e-4)
    assert (got.argmax(-1) == expected.argmax(-1)).all()


def test_a_rewritten_graph_is_made_once_and_kept_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = tmp_path / "block.onnx"
    _lcnet_block(source)
    image = np.random.default_rng(3).uniform(-1, 1, size=(1, 3, 12, 20)).astype(np.float32)
    expected = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"]).run(None, {"x": image})[0]
    cached = Path(rewritten(source, simplified))
    assert cached.parent == rewrite_cache_dir() and cached.is_file() and rewritten(source, simplified) == str(cached)
    assert not list(cached.parent.glob("*.partial"))
    cached.write_bytes(b"damaged")  # a cached file spoilt on disk is made again, not an error
    got = open_session(source, "cpu", rewrite=simplified).run(None, {"x": image})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    assert onnx.load(str(cached)).graph.node  # whole again
    source.touch()  # an edited source is rewritten afresh
    assert rewritten(source, simplified) != str(cached)
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "not-a-folder"))  # no cache can be written there
    assert isinstance(rewritten(source, simplified), bytes)
