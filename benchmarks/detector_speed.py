"""Speed of the UI-element detector on one 1280x800 screen (a synthetic Qt window on a desktop): ms per frame
through ONNX Runtime on the CPU with 1 and 2 threads and the default, the network alone and with pre- and
post-processing, on CUDA when onnxruntime-gpu sees a GPU, and its ratio to a whole-frame OCR read of the same screen
(the OCR grounder's other per-frame cost) measured in the same process. One line per figure (median of --repeats).

    python benchmarks/detector_speed.py [--repeats N] [--model FILE.onnx]
"""

from __future__ import annotations

import argparse
import os
import random
from pathlib import Path

from deskpilot.grounding.detector import UiDetector, screen_bytes
from deskpilot.grounding.ocr import OcrEngine
from deskpilot.training.detector.data import compose
from deskpilot.training.detector.synth.qt import QtRenderer
from timing import median_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--model", type=Path, default=None)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    rng = random.Random(7)
    window, boxes = QtRenderer().render(rng, 900, 640)
    frame, _ = compose(rng, window, boxes, 1280, 800)
    print(f"frame 1280x800, {len(boxes)} controls, {os.cpu_count()} CPU cores")
    results: dict[str, float] = {}
    for threads in (1, 2, 0):
        detector = UiDetector(args.model, device="cpu", threads=threads)
        name = f"cpu threads={threads or 'default'}"
        results[name] = median_ms(lambda d=detector: d.detect(frame), args.repeats, warmup=1)
        pixels = screen_bytes(frame, detector.scale)
        network = median_ms(lambda d=detector, p=pixels: d.session.run(None, {"image": p}), args.repeats,
                            warmup=1)
        print(f"detector {name:<20} median {results[name]:7.1f} ms/frame (network alone {network:.1f} ms, "
              f"n={args.repeats})", flush=True)
    try:
        gpu = UiDetector(args.model, device="cuda")
        results["cuda"] = median_ms(lambda: gpu.detect(frame), args.repeats, warmup=1)
        print(f"detector {'cuda':<20} median {results['cuda']:7.1f} ms/frame (n={args.repeats})", flush=True)
    except Exception as exc:  # no onnxruntime-gpu or no GPU here: say so and go on
        print(f"detector cuda                 unavailable ({str(exc).splitlines()[0][:80]})")
    engine = OcrEngine()
    ocr = median_ms(lambda: engine.read(frame), max(3, args.repeats // 5), warmup=1)
    best = min(results.values())
    print(f"ocr whole frame               median {ocr:7.1f} ms/frame; detector/ocr ratio {best / ocr:.3f}")


if __name__ == "__main__":
    main()
