"""An int8 copy of the exported text recogniser, for reading lines several times faster on a CPU: ONNX Runtime's
static quantisation (QDQ, weights per output channel), its activation ranges calibrated on training lines. Its
readings differ a little from the float model's, so the accept threshold is chosen again from the int8 model's own
readings of the held-out lines (train.evaluate_lines), and written into its metadata like the float model's.

Weights use 7 of their 8 bits (`reduce_range`): CPUs without VNNI multiply uint8 by int8 in saturating 16-bit
sums, and the smaller range keeps those exact, so the model reads the same on every x86 CPU as where its threshold
was chosen."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from deskpilot.core.errors import TrainingError
from deskpilot.grounding.text_recognizer import line_batch

CALIBRATION_BATCH = 32


def quantize_recognizer(source: Path, out: Path, calibration: list[np.ndarray]) -> Path:
    """Write the int8 copy of the float ONNX recogniser `source` to `out` (metadata kept), its activation ranges
    from `calibration` (normalised uint8 lines, as training reads them)."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if not calibration:
        raise TrainingError("no lines to calibrate the int8 recogniser on")
    ordered = sorted(calibration, key=lambda line: line.shape[1])  # similar widths batch with little padding
    batches = [line_batch([line.astype(np.float32) / 255.0 for line in ordered[start:start + CALIBRATION_BATCH]])[0]
               for start in range(0, len(ordered), CALIBRATION_BATCH)]

    class Lines(CalibrationDataReader):
        def __init__(self) -> None:
            self.remaining = iter(batches)

        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(self.remaining, None)
            return None if batch is None else {"lines": batch}

    with tempfile.TemporaryDirectory() as folder:
        prepared = Path(folder) / "prepared.onnx"
        quant_pre_process(str(source), str(prepared))
        quantize_static(str(prepared), str(out), Lines(), quant_format=QuantFormat.QDQ, per_channel=True,
                        reduce_range=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    model, original = onnx.load(str(out)), onnx.load(str(source))
    del model.metadata_props[:]
    model.metadata_props.extend(original.metadata_props)
    onnx.save(model, str(out))
    return out


def set_accept(path: Path, accept: float) -> None:
    """Store the accept threshold in the model's metadata (replacing the one it has)."""
    import onnx

    model = onnx.load(str(path))
    kept = [entry for entry in model.metadata_props if entry.key != "accept"]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    entry = model.metadata_props.add()
    entry.key, entry.value = "accept", f"{accept:.4f}"
    onnx.save(model, str(path))
