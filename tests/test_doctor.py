"""`deskpilot doctor`: every check reported with a status, X11 features read from the real display, and the
verdicts when the environment lacks a display, has only Wayland, or points at a missing model. Nothing is faked:
only the environment changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CHECKS = {"display", "screen capture", "input injection", "global stop hotkey", "monitors", "OCR models",
          "UI-element detector", "local models", "settings", "episodes folder", "keyring", "clipboard",
          "benchmark browser"}


def doctor(tmp_path, **changes: str | None) -> tuple[int, dict]:
    env = {**os.environ, "DESKPILOT_CONFIG": str(tmp_path / "config.toml"),
           "DESKPILOT_EPISODES_DIR": str(tmp_path / "episodes")}
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    result = subprocess.run([sys.executable, "-m", "deskpilot.app", "doctor", "--json"], capture_output=True,
                            text=True, timeout=120, env=env)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, json.loads(result.stdout)


def by_name(report: dict) -> dict[str, dict]:
    return {check["name"]: check for check in report["checks"]}


def test_every_check_is_reported_and_x11_features_are_read_from_the_display(xdisplay, tmp_path):
    code, report = doctor(tmp_path)
    checks = by_name(report)
    assert set(checks) == CHECKS
    assert all(c["status"] in ("ok", "warn", "fail") and c["detail"] for c in checks.values())
    assert code == 0 and report["can_run"] is True
    assert checks["display"]["status"] == "ok" and "X11" in checks["display"]["detail"]
    assert checks["screen capture"]["status"] == "ok" and "1280x800" in checks["screen capture"]["detail"]
    assert checks["input injection"]["status"] == "ok" and "XTEST" in checks["input injection"]["detail"]
    assert checks["global stop hotkey"]["status"] == "ok" and "RECORD" in checks["global stop hotkey"]["detail"]
    assert "1280x800 at (0, 0)" in checks["monitors"]["detail"]
    ocr = checks["OCR models"]["detail"]
    assert "CPUExecutionProvider" in ocr and "PP-OCR's recogniser on cpu" in ocr
    assert "deskpilot's text-line detector on cpu" in ocr
    assert checks["UI-element detector"]["status"] == "ok" and "cpu" in checks["UI-element detector"]["detail"]
    assert checks["episodes folder"]["status"] == "ok"


def test_ocr_asked_onto_a_gpu_that_is_not_there_fails_the_check(xdisplay, tmp_path):
    import onnxruntime

    if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        pytest.skip("this machine has CUDA: the check would pass")
    code, report = doctor(tmp_path, DESKPILOT_OCR_DEVICE="cuda")
    ocr = by_name(report)["OCR models"]
    assert ocr["status"] == "fail" and "no CUDA provider" in ocr["detail"] and ocr["fix"]
    assert code == 1 and report["can_run"] is False


@pytest.mark.display
def test_no_display_is_a_warning_when_a_virtual_one_can_be_made(tmp_path):
    code, report = doctor(tmp_path, DISPLAY=None, WAYLAND_DISPLAY=None)
    checks = by_name(report)
    assert checks["display"]["status"] == "warn" and "Xvfb" in checks["display"]["detail"]
    assert "screen capture" not in checks  # nothing to capture from: not checked, not faked
    assert code == 0 and report["can_run"] is True


@pytest.mark.display
def test_wayland_without_xwayland_cannot_run(tmp_path):
    code, report = doctor(tmp_path, DISPLAY=None, WAYLAND_DISPLAY="wayland-0")
    display = by_name(report)["display"]
    assert display["status"] == "fail" and "without XWayland" in display["detail"] and display["fix"]
    assert code == 1 and report["can_run"] is False


@pytest.mark.parametrize("wayland", ["wayland-0"])
def test_wayland_with_xwayland_warns_about_the_hotkey(xdisplay, tmp_path, wayland):
    code, report = doctor(tmp_path, WAYLAND_DISPLAY=wayland)
    checks = by_name(report)
    assert checks["display"]["status"] == "warn" and "XWayland" in checks["display"]["detail"]
    assert checks["global stop hotkey"]["status"] == "warn" and "Wayland" in checks["global stop hotkey"]["detail"]
    assert code == 0


def test_a_missing_detector_model_fails_with_a_fix(xdisplay, tmp_path):
    code, report = doctor(tmp_path, DESKPILOT_DETECTOR_MODEL=str(tmp_path / "gone.onnx"))
    detector = by_name(report)["UI-element detector"]
    assert detector["status"] == "fail" and "gone.onnx" in detector["detail"]
    assert "DESKPILOT_DETECTOR=false" in detector["fix"]
    assert code == 1 and report["can_run"] is False
