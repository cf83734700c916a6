"""Settings shared by the CLI and the app: a TOML file, DESKPILOT_* environment variables, then explicit overrides
(CLI flags), later sources winning. A bad value is one clear SettingsError line."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from .errors import ActionParseError, SettingsError
from .keys import split_combo
from .safety import ConfirmMode


def default_config_file() -> Path:
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return Path(os.environ.get("DESKPILOT_CONFIG") or base / "deskpilot" / "config.toml")


PlannerName = Literal["auto", "offline", "learned", "openai", "transformers"]
PlanMode = Literal["native", "som", "som-text"]
PLANNERS: tuple[str, ...] = get_args(PlannerName)
ModelDevice = Literal["auto", "cpu", "cuda"]


class Settings(BaseSettings):
    # inf and nan are refused everywhere: `settle_timeout = inf` would make a wait that nothing ends
    model_config = SettingsConfigDict(env_prefix="DESKPILOT_", extra="forbid", allow_inf_nan=False)

    episodes_dir: Path = Field(Path("episodes"), description="where every run and recording is written")
    planner: PlannerName = Field("auto", description="which planner decides actions: auto (offline where the grammar "
                                 "reads the task, else the language model), offline (rules), learned (the "
                                 "model deskpilot ships), openai (an endpoint), transformers (a local folder)")
    base_url: str = Field("http://127.0.0.1:8000/v1", description="OpenAI-compatible endpoint (vLLM, Ollama, ...)")
    model: str | None = Field(None, description="model name at the endpoint, or a local folder for transformers")
    api_key: SecretStr | None = Field(None, description="API key for the endpoint (else $OPENAI_API_KEY)")
    family: str | None = Field(None, description="prompt/coordinate family (ui-tars-1.5, qwen2.5-vl, ...); guessed "
                                                 "from the model name when unset")
    plan_mode: PlanMode = Field("native", description="model gives coordinates, picks marks (som), or reads only "
                                                      "the list of elements (som-text, for language models)")
    planner_timeout: float = Field(120.0, gt=0, le=3600, description="seconds one decision may take: the model's "
                                   "reply, streamed or not (the agent stops waiting after that)")
    planner_retries: int = Field(2, ge=0, le=10, description="retries on 429/5xx, with backoff")
    history_images: int = Field(3, ge=1, le=20, description="screenshots (current one included) sent to the model")
    token_budget: int = Field(16000, ge=1000, le=1_000_000, description="largest prompt, in estimated tokens")
    max_new_tokens: int = Field(512, ge=16, le=32768, description="longest model reply")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="sampling temperature of a local model's reply "
                                                                "(0 = greedy)")
    language_model: str = Field("none", description="the model `--planner auto` gives what the offline grammar "
                                "does not read: none (refuse instead, the default until the language planner "
                                "stops claiming false successes on held-out forms), shipped (the language planner "
                                "deskpilot ships), or a som-text model folder")
    model_int8: bool = Field(False, description="run a local language model's linear layers in int8 on the CPU "
                             "(dynamic quantisation: faster, answers may differ)")
    model_compile: bool = Field(False, description="on CUDA, compile a local language model's decoding step into "
                                "CUDA graphs (a static attention cache): answers ~2x faster, the first one 13-47 s "
                                "slower (for long runs)")
    min_confidence: float = Field(0.4, ge=0.0, le=1.0, description="a local model's answer less likely than "
                                  "this is not acted on: the agent stops and asks the user (0 = always act)")
    model_answers: int = Field(4, ge=1, le=16, description="replies a local som-text model gives per step; the planner "
                               "acts on the likeliest that repeats no move on the same screen and clicks only what "
                               "is shown (1 = its first reply)")
    max_steps: int = Field(30, ge=1, le=1000, description="step limit of one run")
    dry_run: bool = Field(False, description="decide and log actions without moving the mouse or typing")
    monitor: int = Field(0, ge=0, le=16, description="0 = the whole virtual desktop, 1..n = one monitor")
    scale: float = Field(1.0, ge=0.25, le=8, description="HiDPI scale: physical pixels per logical pixel")
    stop_hotkey: str = Field("ctrl+shift+f12", description="global emergency-stop hotkey (not ctrl+alt+F-keys: "
                                                           "X11 turns those into virtual-terminal switches)")
    record_stop_hotkey: str = Field("ctrl+shift+f10", description="ends a recording")
    record_pause_hotkey: str = Field("ctrl+shift+f9", description="pauses and resumes a recording")
    confirm: ConfirmMode = Field("risky", description="ask before: never, risky actions, or always")
    min_action_interval: float = Field(0.05, ge=0, le=10, description="rate limit: seconds between two actions")
    locate_timeout: float = Field(3.0, ge=0, le=60, description="seconds to keep looking for a target that is not "
                                                                "there yet")
    settle_timeout: float = Field(2.0, ge=0, le=60, description="longest wait for the screen to stop changing")
    ocr_threads: int = Field(0, ge=0, le=256, description="ONNX Runtime threads for OCR (0 = all cores)")
    ocr_device: ModelDevice = Field("auto", description="where OCR's models run: auto (with onnxruntime-gpu and a "
                                                          "GPU, each where it was measured faster), cpu or cuda")
    detector: bool = Field(True, description="add the UI-element detector's boxes (fields, check boxes, icons, ...) "
                                             "to what OCR finds")
    accessibility: bool = Field(True, description="use the accessibility tree (AT-SPI on Linux) where an app exposes "
                                                  "it: exact boxes, names and states; pixels otherwise")
    detector_model: Path | None = Field(None, description="detector ONNX file (default: the bundled one)")
    text_recognizer: bool = Field(True, description="read text lines with deskpilot's own small recogniser first "
                                                    "and with PP-OCR's only where it is unsure (several times "
                                                    "faster); off: PP-OCR reads every line")
    text_recognizer_model: Path | None = Field(None, description="text recogniser ONNX file (default: the bundled "
                                                                 "one)")
    text_detector: bool = Field(True, description="find text lines with deskpilot's own small detector (several "
                                                  "times faster); off: PP-OCR's detector finds them")
    text_detector_model: Path | None = Field(None, description="text-line detector ONNX file (default: the bundled "
                                                               "one)")
    detector_device: ModelDevice = Field("auto", description="where the detector runs: auto (with onnxruntime-gpu "
                                                               "and a GPU, where it was measured faster), cpu or "
                                                               "cuda")

    @field_validator("stop_hotkey", "record_stop_hotkey", "record_pause_hotkey")
    @classmethod
    def _known_hotkey(cls, value: str) -> str:
        try:
            keys = split_combo(value)
        except ActionParseError as exc:
            raise ValueError(str(exc)) from None
        if {"ctrl", "alt"} <= set(keys) and any(k.startswith("f") and k[1:].isdigit() for k in keys):
            raise ValueError("ctrl+alt+F-keys switch virtual terminals on X11; choose another combination")
        return value

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls, default_config_file())


def load_settings(**overrides: Any) -> Settings:
    """Settings from file + environment, with `overrides` (None values ignored) on top."""
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise SettingsError(f"bad setting {where!r}: {err['msg']} (from flags, DESKPILOT_* variables or "
                            f"{default_config_file()})") from None
    except (OSError, ValueError, TypeError) as exc:
        raise SettingsError(f"cannot read settings file {default_config_file()}: {_first_line(exc)}") from None
    except RecursionError:
        raise SettingsError(f"cannot read settings file {default_config_file()}: nested too deeply") from None


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0][:200]


KEYRING_SERVICE = "deskpilot"


def save_settings(values: dict[str, Any]) -> Settings:
    """Validate `values` and write them into the settings file (atomically), keeping its other entries; a None
    value removes the entry (back to the default). API keys never go here: see store_api_key."""
    import tomli_w

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib

    from .files import write_atomic

    values = {k: v for k, v in values.items() if k != "api_key"}
    settings = load_settings(**values)
    path = default_config_file()
    try:
        current = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        for name, value in values.items():
            if value is None:
                current.pop(name, None)
            else:
                current[name] = str(value) if isinstance(value, Path) else value
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, tomli_w.dumps(current).encode())
    except (OSError, ValueError) as exc:
        raise SettingsError(f"cannot write settings file {path}: {exc}") from None
    return settings


def store_api_key(key: str) -> None:
    """Keep the endpoint's API key in the OS keyring (Secret Service, macOS Keychain, Windows Credential Locker)."""
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, "api_key", key)
    except Exception as exc:  # noqa: BLE001 - every keyring backend has its own errors
        raise SettingsError(f"the OS keyring could not store the API key ({exc}); set DESKPILOT_API_KEY "
                            "instead") from None


def stored_api_key() -> str | None:
    """The API key from the OS keyring, or None when there is none (or no keyring)."""
    try:
        import keyring

        return keyring.get_password(KEYRING_SERVICE, "api_key")
    except Exception:  # noqa: BLE001 - no keyring on this machine: simply no stored key
        return None
