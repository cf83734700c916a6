"""`deskpilot doctor`: what works on this machine and what does not, one line per check with a fix where there is
one — the display server and what it allows (capture, input, the global stop hotkey), monitors, the OCR and
detector models and their ONNX Runtime providers, local-model support, settings, episodes folder, keyring,
clipboard, and the benchmark browser. The CLI prints it; the app's Settings view shows the same report."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""
    required: bool = False  # a failed required check means the agent cannot run here

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class Report:
    checks: list[Check]

    @property
    def can_run(self) -> bool:
        return not any(c.status == "fail" and c.required for c in self.checks)

    def to_dict(self) -> dict[str, object]:
        return {"can_run": self.can_run, "checks": [c.to_dict() for c in self.checks]}

    def lines(self) -> list[str]:
        marks = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}
        rows = [f"{marks[c.status]}  {c.name}: {c.detail}" + (f" — {c.fix}" if c.fix else "") for c in self.checks]
        verdict = "the agent can run here" if self.can_run else \
            "the agent cannot run here until the FAIL lines are fixed"
        return [*rows, verdict]


def diagnose() -> Report:
    """Every check, each one guarded: a check that breaks is reported as failed, never raised."""
    checks: list[Check] = []
    for check in (_display_session, _x11_features, _monitors, _ocr, _detector, _local_models,
                  _settings_and_episodes, _keyring, _clipboard, _benchmark_browser):
        try:
            found = check()
        except Exception as exc:  # noqa: BLE001 - a doctor reports what breaks instead of breaking
            found = Check(check.__name__.strip("_").replace("_", " "), "fail", f"{type(exc).__name__}: {exc}")
        checks.extend(found if isinstance(found, list) else [found])
    return Report(checks)


def _display_session() -> Check:
    x11, wayland = os.environ.get("DISPLAY"), os.environ.get("WAYLAND_DISPLAY")
    if sys.platform in ("win32", "darwin"):
        return Check("display", "ok", f"{sys.platform} desktop", required=True)
    if wayland and x11:
        return Check("display", "warn", f"Wayland ({wayland}) with XWayland ({x11}): deskpilot sees and acts on X11 "
                     "windows; the global stop hotkey hears only keys typed into them",
                     "stop with Ctrl+C, the app's Stop button or a screen corner; or log in to an X11 session",
                     required=True)
    if wayland:
        return Check("display", "fail", f"Wayland ({wayland}) without XWayland: no screen capture or input for X "
                     "clients", "enable XWayland (DISPLAY), or log in to an X11 session", required=True)
    if x11:
        return Check("display", "ok", f"X11 ({x11})", required=True)
    if shutil.which("Xvfb"):
        return Check("display", "warn", "no display: `deskpilot run` starts a virtual one (Xvfb); the app needs a "
                     "real one", required=True)
    return Check("display", "fail", "no display and no Xvfb to make a virtual one",
                 "run on a desktop, or apt-get install xvfb", required=True)


def _x11_features() -> list[Check]:
    """Screen capture, input injection (XTEST) and the global hotkey (RECORD) on the X display, when there is one."""
    if not os.environ.get("DISPLAY") or sys.platform in ("win32", "darwin"):
        return []
    from Xlib import display as xlib_display

    from deskpilot.core.display import ensure_xauthority

    ensure_xauthority()
    try:
        connection = xlib_display.Display()
    except Exception as exc:  # noqa: BLE001 - Xlib raises several kinds when the display is unusable
        return [Check("screen capture", "fail", f"cannot open {os.environ['DISPLAY']}: {exc}",
                      "check DISPLAY and XAUTHORITY", required=True)]
    try:
        xtest, record = connection.has_extension("XTEST"), connection.has_extension("RECORD")
    finally:
        connection.close()
    from deskpilot.core.screen import Screen

    shot = Screen().grab()
    checks = [Check("screen capture", "ok", f"mss grabbed {shot.shape[1]}x{shot.shape[0]}", required=True),
              Check("input injection", "ok" if xtest else "fail", "XTEST extension " + ("present" if xtest else
                    "missing"), "" if xtest else "start the X server with XTEST (Xvfb has it by default)",
                    required=True)]
    from deskpilot.core.hotkeys import stop_hotkey_limit

    limit = stop_hotkey_limit()
    if not record:
        checks.append(Check("global stop hotkey", "warn", "RECORD extension missing: no global hotkey",
                            "stop with Ctrl+C, the app's Stop button or a screen corner"))
    else:
        checks.append(Check("global stop hotkey", "warn" if limit else "ok",
                            limit or "RECORD extension present (pynput hears keys in every window)"))
    return checks


def _monitors() -> Check:
    from deskpilot.core.display import has_display
    from deskpilot.core.settings import load_settings

    if not has_display() or (os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("DISPLAY")):
        return Check("monitors", "warn", "no display to list")
    from deskpilot.core.screen import Screen

    scale = load_settings().scale
    monitors = Screen(scale=scale).monitors()
    listed = "; ".join(f"{m.width}x{m.height} at ({m.left}, {m.top}), scale {m.scale:g}" for m in monitors)
    return Check("monitors", "ok", f"{len(monitors)}: {listed}")


def _ocr() -> Check:
    import onnxruntime as ort

    from deskpilot.core.errors import DeskpilotError
    from deskpilot.core.settings import load_settings
    from deskpilot.grounding.factory import build_ocr

    engine = build_ocr(load_settings(), threads=1)
    try:
        engine.load()
    except DeskpilotError as exc:
        return Check("OCR models", "fail", str(exc), 'reinstall rapidocr-onnxruntime, or set ocr_device = "cpu"; '
                     "for deskpilot's own models: point text_recognizer_model / text_detector_model at an ONNX "
                     "file, or set DESKPILOT_TEXT_RECOGNIZER=false / DESKPILOT_TEXT_DETECTOR=false", required=True)
    own = "".join(f" with deskpilot's {what} ({path.name})" for what, path in (
        ("text-line detector", engine.text_detector_path), ("text recogniser first", engine.recognizer_path)) if path)
    where = "; ".join(f"{model} on {choice.describe() if choice else device}"
                      for model, (device, choice) in engine.devices().items())
    return Check("OCR models", "ok", f"PP-OCR{own} loads on ONNX Runtime {ort.__version__} "
                 f"(providers: {', '.join(ort.get_available_providers())}): {where}", required=True)


def _detector() -> Check:
    from deskpilot.core.errors import DeskpilotError
    from deskpilot.core.settings import load_settings
    from deskpilot.grounding.detector import UiDetector

    settings = load_settings()
    if not settings.detector:
        return Check("UI-element detector", "warn", "switched off (detector = false): OCR and outlines only")
    try:
        detector = UiDetector(settings.detector_model, settings.detector_device, threads=1)
    except DeskpilotError as exc:
        return Check("UI-element detector", "fail", str(exc), "point detector_model at an ONNX file, or set "
                     "DESKPILOT_DETECTOR=false", required=True)
    gpu = importlib.util.find_spec("onnxruntime_gpu") is not None or "CUDAExecutionProvider" in _providers()
    where = detector.choice.describe() if detector.choice else detector.device + (
        " (onnxruntime-gpu present but no GPU found)" if gpu and detector.device == "cpu" else "")
    return Check("UI-element detector", "ok", f"{detector.path.name} runs on {where}",
                 "" if gpu else "for CUDA: pip install 'deskpilot[gpu]'", required=True)


def _providers() -> list[str]:
    import onnxruntime as ort

    return list(ort.get_available_providers())


def _local_models() -> Check:
    missing = [name for name in ("torch", "transformers", "peft") if importlib.util.find_spec(name) is None]
    if missing:
        return Check("local models", "warn", f"{', '.join(missing)} not installed: the offline and OpenAI-compatible "
                     "planners work; the learned and transformers planners and training do not",
                     "pip install 'deskpilot[models]' (training: 'deskpilot[train]')")
    import torch

    device = "CUDA " + torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU only"
    from deskpilot.planner.factory import learned_model

    shipped = "the learned planner's model is bundled" if (learned_model() / "config.json").is_file() else \
        "no learned planner model is bundled (train one: README, 'A planner deskpilot trains itself')"
    return Check("local models", "ok", f"torch {torch.__version__} ({device}): the transformers planner and "
                 f"training are available; {shipped}")


def _settings_and_episodes() -> list[Check]:
    from deskpilot.core.errors import SettingsError
    from deskpilot.core.settings import default_config_file, load_settings

    path = default_config_file()
    try:
        settings = load_settings()
    except SettingsError as exc:
        return [Check("settings", "fail", str(exc), f"fix or remove {path}", required=True)]
    source = f"{path}" if path.is_file() else f"defaults ({path} does not exist yet)"
    checks = [Check("settings", "ok", f"{source}; planner {settings.planner}, confirm {settings.confirm}",
                    required=True)]
    folder = settings.episodes_dir.resolve()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-"):
            pass
        checks.append(Check("episodes folder", "ok", f"{folder} is writable", required=True))
    except OSError as exc:
        checks.append(Check("episodes folder", "fail", f"{folder}: {exc.strerror}",
                            "set episodes_dir to a writable folder", required=True))
    return checks


def _keyring() -> Check:
    import keyring

    backend = keyring.get_keyring()
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if "fail" in name.lower() or "null" in name.lower():
        return Check("keyring", "warn", f"no usable keyring ({name}): an API key can only come from "
                     "DESKPILOT_API_KEY or the settings", "install a Secret Service (gnome-keyring, KWallet)")
    if "plaintext" in name.lower():
        return Check("keyring", "warn", f"{name} stores secrets in plain text", "use a Secret Service keyring")
    return Check("keyring", "ok", name)


def _clipboard() -> Check:
    if not sys.platform.startswith("linux"):
        return Check("clipboard", "ok", "the system clipboard (pyperclip)")
    if shutil.which("xclip"):
        return Check("clipboard", "ok", "xclip: non-ASCII text is pasted through the clipboard")
    return Check("clipboard", "warn", "no xclip: typing non-ASCII text (accents, CJK) fails", "apt-get install xclip")


def _benchmark_browser() -> Check:
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)),
                   None)
    driver = shutil.which("chromedriver")
    if browser and driver:
        return Check("benchmark browser", "ok", f"{Path(browser).name} and chromedriver (MiniWoB++ benchmarks)")
    return Check("benchmark browser", "warn", "no Chromium/chromedriver: the MiniWoB++ benchmarks cannot run",
                 "bash installers/setup.sh --bench (apt-get install chromium chromium-driver)")
