"""Training the text-line recogniser with CTC on harvested screen lines (PP-OCR's readings as labels) and synthetic
lines, with accelerate (CPU, one GPU, or `accelerate launch` for more); then choosing the `accept` threshold on
lines of held-out screens (the lowest certainty at which accepted readings still agree with PP-OCR's at least
1 - max_disagreement of the time), exporting to ONNX with the alphabet and threshold in its metadata, and checking
that ONNX Runtime gives the same outputs as PyTorch."""

from __future__ import annotations

import json
import math
import random
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch

from deskpilot.core.errors import TrainingError
from deskpilot.grounding.ctc import Reading, greedy_decode_batch
from deskpilot.grounding.onnx_session import open_session
from deskpilot.grounding.text_recognizer import COLUMN_STRIDE, LINE_HEIGHT, line_batch, normalise_line
from deskpilot.training.metrics import MetricsWriter, plot_metrics
from deskpilot.training.jobs import RecognizerTrainConfig

from .data import ALPHABET, LineSample, SyntheticLines, read_datasets
from .model import ColumnProbabilities, LineRecognizerNet

CHECKPOINT = "recognizer.pt"
ONNX_FILE = "text_recognizer.onnx"
REPORT = "report.json"
EQUAL_TOLERANCE = 1e-3
MAX_WIDTH = 1024  # normalised lines wider than this (very long lines) are not trained on


def same_text(a: str, b: str) -> bool:
    """Readings agree when they differ at most in spacing."""
    return a.replace(" ", "") == b.replace(" ", "")


def is_held_out(group: str, share: float) -> bool:
    return zlib.crc32(group.encode()) % 1000 < share * 1000


def _encode(text: str) -> list[int]:
    return [ALPHABET.index(ch) + 1 for ch in text]


def _usable(line: np.ndarray, text: str) -> bool:
    """CTC needs a column per character and one between repeated ones."""
    repeats = sum(a == b for a, b in zip(text, text[1:]))
    return line.shape[1] <= MAX_WIDTH and line.shape[1] // COLUMN_STRIDE >= len(text) + repeats


def load_real(samples: list[LineSample]) -> tuple[list[tuple[np.ndarray, str]], list[LineSample]]:
    """Normalised lines (uint8) and their texts, and the samples they came from (lines CTC cannot learn are left
    out)."""
    lines, kept = [], []
    for sample in samples:
        crop = cv2.imread(str(sample.image))
        if crop is None:
            raise TrainingError(f"cannot read the text-line image {sample.image}")
        line = normalise_line(crop)
        if _usable(line, sample.text):
            lines.append(((line * 255).astype(np.uint8), sample.text))
            kept.append(sample)
    return lines, kept


def draw_synthetic(count: int, seed: int, words: list[str]) -> tuple[list[tuple[np.ndarray, str]], list[np.ndarray]]:
    """Normalised synthetic lines (uint8) and their texts, and the BGR crops they were drawn as."""
    maker = SyntheticLines(seed, words)
    lines, crops = [], []
    while len(lines) < count:
        crop, text = maker.line()
        line = normalise_line(crop)
        if _usable(line, text):
            lines.append(((line * 255).astype(np.uint8), text))
            crops.append(crop)
    return lines, crops


class LineBatches(torch.utils.data.IterableDataset):
    """Endless batches of lines of similar width (random chunks sorted by width), each line's width jittered."""

    def __init__(self, lines: list[tuple[np.ndarray, str]], batch_size: int, seed: int):
        self.lines, self.batch_size, self.rng = lines, batch_size, random.Random(seed)

    def __iter__(self):  # noqa: ANN204 - yields (lines, targets, line columns, target lengths)
        rng = self.rng
        while True:
            chunk = rng.sample(range(len(self.lines)), min(len(self.lines), self.batch_size * 16))
            chunk.sort(key=lambda i: self.lines[i][0].shape[1])
            batches = [chunk[s:s + self.batch_size] for s in range(0, len(chunk), self.batch_size)]
            rng.shuffle(batches)
            for batch in batches:
                yield self._tensors(batch)

    def _tensors(self, batch: list[int]) -> tuple[torch.Tensor, ...]:
        rng = self.rng
        lines, texts = [], []
        for i in batch:
            line, text = self.lines[i]
            width = max(LINE_HEIGHT // 2, round(line.shape[1] * rng.uniform(0.9, 1.1)))
            line = cv2.resize(line, (width, LINE_HEIGHT)).astype(np.float32) / 255.0
            if not _usable(line, text):
                line = self.lines[i][0].astype(np.float32) / 255.0
            shift = rng.randint(-2, 2)  # detection's boxes sit a pixel or two higher or lower
            if shift:
                line = np.roll(line, shift, axis=0)
                line[(slice(0, shift) if shift > 0 else slice(shift, None))] = 0.0
            lines.append(line * rng.uniform(0.6, 1.0) if rng.random() < 0.3 else line)
            texts.append(text)
        pixels, widths = line_batch(lines)
        targets = torch.tensor([k for text in texts for k in _encode(text)], dtype=torch.long)
        return (torch.from_numpy(pixels), targets, torch.tensor([w // COLUMN_STRIDE for w in widths]),
                torch.tensor([len(t) for t in texts]))


Probabilities = Callable[[np.ndarray], np.ndarray]  # N x 1 x LINE_HEIGHT x W -> N x columns x classes


def torch_probabilities(net: LineRecognizerNet) -> Probabilities:
    def run(pixels: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return ColumnProbabilities(net.eval())(torch.from_numpy(pixels)).numpy()
    return run


def onnx_probabilities(path: Path) -> Probabilities:
    session = open_session(path, device="cpu", what="exported text recogniser")
    return lambda pixels: session.run(None, {"lines": pixels})[0]


def read_all(probabilities: Probabilities, lines: list[tuple[np.ndarray, str]],
             batch_size: int = 64) -> list[Reading]:
    """A model's readings of normalised lines (as grounding decodes them)."""
    alphabet = ["", *ALPHABET]
    order = sorted(range(len(lines)), key=lambda i: lines[i][0].shape[1])
    readings: list[Reading | None] = [None] * len(lines)
    for start in range(0, len(order), batch_size):
        batch = order[start:start + batch_size]
        pixels, widths = line_batch([lines[i][0].astype(np.float32) / 255.0 for i in batch])
        decoded = greedy_decode_batch(probabilities(pixels), alphabet, [width / pixels.shape[3] for width in widths])
        for i, reading in zip(batch, decoded):
            readings[i] = reading
    return readings  # type: ignore[return-value]


def choose_threshold(readings: list[Reading], texts: list[str], max_disagreement: float) -> dict[str, float]:
    """The lowest certainty threshold at which the accepted readings disagree with `texts` at most
    max_disagreement of the time; with the share accepted and the disagreement there."""
    pairs = sorted(zip((r.certainty for r in readings), (same_text(r.text, t) for r, t in zip(readings, texts))),
                   reverse=True)
    best = {"accept": 1.0, "accepted": 0.0, "disagreement": 0.0}
    wrong = 0
    for count, (certainty, agrees) in enumerate(pairs, 1):
        wrong += not agrees
        if wrong / count <= max_disagreement and (count == len(pairs) or pairs[count][0] < certainty):
            best = {"accept": certainty, "accepted": count / len(pairs), "disagreement": wrong / count}
    return best


def train_recognizer(config: RecognizerTrainConfig,
                     on_progress: Callable[[int, int, dict[str, float]], None] | None = None) -> dict[str, object]:
    """Train, save recognizer.pt, choose the threshold, export text_recognizer.onnx and check it; returns the
    report (also written to report.json)."""
    from accelerate import Accelerator

    samples = read_datasets(config.data)
    train_samples = [s for s in samples if not is_held_out(s.group, config.held_out)]
    if not train_samples or len(train_samples) == len(samples):
        raise TrainingError(f"{len(samples)} harvested lines are too few to train and hold some out: harvest "
                            "more screens with `deskpilot recognizer harvest`")
    real, _ = load_real(train_samples)
    words = sorted({w for _, text in real for w in text.split() if w.isalpha()})
    synthetic, _ = draw_synthetic(config.synthetic, config.seed, words)
    held_out = held_out_lines(samples, config.held_out, max(100, config.synthetic // 10), config.seed + 1)
    torch.manual_seed(config.seed)
    accelerator = Accelerator()
    model = load_checkpoint(config.init).train() if config.init else LineRecognizerNet(len(ALPHABET) + 1,
                                                                                         config.width)
    loader = torch.utils.data.DataLoader(LineBatches(real + synthetic, config.batch_size, config.seed),
                                         batch_size=None)
    optimizer = torch.optim.AdamW(model.parameters(), config.learning_rate, weight_decay=1e-4)
    warmup = min(300, config.steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / max(1, warmup)) * (
        0.5 * (1 + math.cos(math.pi * min(1.0, step / max(1, config.steps))))) + 0.01)
    model, optimizer, schedule = accelerator.prepare(model, optimizer, schedule)
    ctc = torch.nn.CTCLoss(zero_infinity=True)
    config.out.mkdir(parents=True, exist_ok=True)
    metrics = MetricsWriter(config.out)
    if accelerator.is_main_process:
        metrics.start()
    started, step, last = time.monotonic(), 0, {}
    deadline = started + 60 * config.max_minutes if config.max_minutes else math.inf
    model.train()
    for pixels, targets, columns, lengths in loader:
        pixels = pixels.to(accelerator.device)
        log_probs = model(pixels).log_softmax(1).permute(2, 0, 1)
        loss = ctc(log_probs, targets.to(accelerator.device), columns, lengths)
        optimizer.zero_grad()
        accelerator.backward(loss)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        schedule.step()
        step += 1
        last = {"loss": loss.item(), "learning_rate": schedule.get_last_lr()[0]}
        if accelerator.is_main_process and (step % config.log_every == 0 or step == 1):
            metrics.write(step, last)
        if on_progress is not None:
            on_progress(step, config.steps, last)
        if step >= config.steps or time.monotonic() > deadline:
            break
    seconds = time.monotonic() - started
    accelerator.wait_for_everyone()
    accelerator.end_training()  # leaves the process group, which gloo cannot do safely at interpreter exit
    report: dict[str, object] = {"steps": step, "seconds": round(seconds, 1), "loss": round(last["loss"], 4),
                                 "lines": {"harvested": len(real), "synthetic": len(synthetic),
                                           "held_out": len(held_out.lines)}}
    if accelerator.is_main_process:
        net = accelerator.unwrap_model(model).cpu().eval()
        torch.save({"state_dict": net.state_dict(), "width": net.width, "alphabet": ALPHABET},
                   config.out / CHECKPOINT)
        report.update(threshold_and_export(net, held_out, config.max_disagreement, config.out / ONNX_FILE))
        (config.out / REPORT).write_text(json.dumps(report, indent=1) + "\n")
        plot_metrics(config.out)
    return report


@dataclass
class HeldOut:
    """Lines never trained on: harvested ones (PP-OCR's readings; `sources` names each one's kind of screen) and
    synthetic ones of known text (with the crops they were drawn as)."""

    lines: list[tuple[np.ndarray, str]]
    sources: list[str]
    synthetic: list[tuple[np.ndarray, str]]
    synthetic_crops: list[np.ndarray]


def calibration_lines(samples: list[LineSample], share: float, count: int, seed: int) -> list[np.ndarray]:
    """`count` normalised lines of the screens not held out, drawn at random (to calibrate an int8 copy on)."""
    trained = [s for s in samples if not is_held_out(s.group, share)]
    lines, _ = load_real(random.Random(seed).sample(trained, min(count, len(trained))))
    return [line for line, _ in lines]


def held_out_lines(samples: list[LineSample], share: float, count: int, seed: int) -> HeldOut:
    """The lines of the held-out `share` of the samples' screens, and `count` synthetic lines of `seed` (their words
    from all the samples' texts); training and `recognizer export` score on the same."""
    lines, kept = load_real([s for s in samples if is_held_out(s.group, share)])
    if not lines:
        raise TrainingError(f"no held-out lines among the {len(samples)} harvested ones")
    words = sorted({w for s in samples for w in s.text.split() if w.isalpha()})
    return HeldOut(lines, [s.group.split("/")[0] for s in kept], *draw_synthetic(count, seed, words))


def threshold_and_export(net: LineRecognizerNet, held: HeldOut, max_disagreement: float, path: Path,
                         int8_calibration: list[np.ndarray] | None = None) -> dict[str, object]:
    """Choose the accept threshold on held-out lines, export the ONNX file with it and check it; the scores. With
    `int8_calibration` (training lines), the file is the int8 copy (quantize.py), its threshold and scores from its
    own readings, and the float model's scores under "float"."""
    teacher = ppocr_accuracy(held)
    report, float_readings = evaluate_lines(torch_probabilities(net), held, max_disagreement, teacher)
    export_onnx(net, path, float(report["accept"]))  # type: ignore[arg-type]
    report["onnx"] = str(path)
    report["onnx_max_difference"] = check_export(net, path, held.lines[:32])
    if int8_calibration is None:
        return report
    from .quantize import quantize_recognizer, set_accept

    floating = path.with_name(path.stem + ".float.onnx")
    path.replace(floating)
    try:
        quantize_recognizer(floating, path, int8_calibration)
    finally:
        floating.unlink(missing_ok=True)
    quantized, int8_readings = evaluate_lines(onnx_probabilities(path), held, max_disagreement, teacher)
    set_accept(path, float(quantized["accept"]))  # type: ignore[arg-type]
    quantized.update({"onnx": str(path), "int8": True, "float": report,
                      "same_as_float": round(float(np.mean([a.text == b.text for a, b in
                                                             zip(float_readings, int8_readings)])), 4)})
    return quantized


def ppocr_accuracy(held: HeldOut) -> float:
    """PP-OCR's exact accuracy on the held-out synthetic lines (the crops they were drawn as)."""
    from deskpilot.grounding.ocr import OcrEngine

    truth = [t for _, t in held.synthetic]
    return float(np.mean([r.text.strip() == t for r, t in zip(OcrEngine().recognise(held.synthetic_crops), truth)]))


def evaluate_lines(probabilities: Probabilities, held: HeldOut, max_disagreement: float,
                   teacher: float) -> tuple[dict[str, object], list[Reading]]:
    """Agreement with PP-OCR on held-out screens' lines (all, per kind of screen, and at the chosen threshold);
    on held-out synthetic lines of known text, exact accuracy of the network (all, and the lines it accepts) beside
    PP-OCR's (`teacher`, from ppocr_accuracy). With the readings of the held-out screens' lines."""
    readings = read_all(probabilities, held.lines)
    texts = [t for _, t in held.lines]
    agrees = [same_text(r.text, t) for r, t in zip(readings, texts)]
    chosen = choose_threshold(readings, texts, max_disagreement)
    by_source = {source: {"lines": sum(s == source for s in held.sources),
                          "agreement": round(float(np.mean([a for a, s in zip(agrees, held.sources) if s == source])),
                                             4),
                          "accepted": round(float(np.mean([r.certainty >= chosen["accept"]
                                                           for r, s in zip(readings, held.sources) if s == source])),
                                            4)}
                 for source in sorted(set(held.sources))}
    truth = [t for _, t in held.synthetic]
    synthetic_readings = read_all(probabilities, held.synthetic)
    ours = [r.text == t for r, t in zip(synthetic_readings, truth)]
    accepted = [r.certainty >= chosen["accept"] for r in synthetic_readings]
    return {"agreement": round(sum(agrees) / len(held.lines), 4), "by_source": by_source,
            "exact_agreement": round(sum(r.text == t for r, t in zip(readings, texts)) / len(held.lines), 4),
            "accept": round(chosen["accept"], 4), "accepted": round(chosen["accepted"], 4),
            "accepted_disagreement": round(chosen["disagreement"], 4),
            "synthetic": {"lines": len(truth), "accuracy": round(float(np.mean(ours)), 4),
                          "accepted": round(float(np.mean(accepted)), 4),
                          "accepted_accuracy": round(float(np.mean([o for o, a in zip(ours, accepted) if a]))
                                                     if any(accepted) else 0.0, 4),
                          "ppocr_accuracy": round(teacher, 4)}}, readings


def load_checkpoint(path: Path) -> LineRecognizerNet:
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        net = LineRecognizerNet(len(saved["alphabet"]) + 1, int(saved["width"]))
        net.load_state_dict(saved["state_dict"])
    except (OSError, KeyError, RuntimeError) as exc:
        raise TrainingError(f"cannot load the recogniser checkpoint {path}: {str(exc).splitlines()[0]}") from None
    if saved["alphabet"] != ALPHABET:
        raise TrainingError(f"the recogniser checkpoint {path} reads another alphabet than this deskpilot's")
    return net.eval()


def export_onnx(net: LineRecognizerNet, path: Path, accept: float) -> Path:
    """ONNX with dynamic batch and width; metadata `alphabet` (JSON list, blank excluded) and `accept`."""
    import onnx

    example = torch.zeros(2, 1, LINE_HEIGHT, 128)
    torch.onnx.export(ColumnProbabilities(net.eval()), (example,), str(path), input_names=["lines"],
                      output_names=["probabilities"],
                      dynamic_axes={"lines": {0: "batch", 3: "width"}, "probabilities": {0: "batch", 1: "columns"}},
                      opset_version=17, dynamo=False)
    model = onnx.load(str(path))
    for key, value in (("alphabet", json.dumps(list(ALPHABET))), ("accept", f"{accept:.4f}")):
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(model, str(path))
    return path


def check_export(net: LineRecognizerNet, path: Path, lines: list[tuple[np.ndarray, str]]) -> float:
    """The largest difference between PyTorch's and ONNX Runtime's probabilities on `lines`; an error when it is
    over EQUAL_TOLERANCE."""
    pixels, _ = line_batch([line.astype(np.float32) / 255.0 for line, _ in lines])
    difference = float(np.abs(torch_probabilities(net)(pixels) - onnx_probabilities(path)(pixels)).max())
    if difference > EQUAL_TOLERANCE:
        raise TrainingError(f"the ONNX export differs from PyTorch by {difference:.2g} (> {EQUAL_TOLERANCE})")
    return difference
