"""Settings shared by the CLI and the app: a TOML file, DESKPILOT_* environment variables, then explicit overrides
(CLI flags), later sources winning. A bad value is one clear SettingsError line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from typing import Literal

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from .errors import SettingsError
from .safety import ConfirmMode


def default_config_file() -> Path:
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return Path(os.environ.get("DESKPILOT_CONFIG") or base / "deskpilot" / "config.toml")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DESKPILOT_", extra="forbid")

    episodes_dir: Path = Field(Path("episodes"), description="where every run and recording is written")
    planner: Literal["offline", "openai", "transformers"] = Field("offline",
                                                                  description="which planner decides actions")
    base_url: str = Field("http://127.0.0.1:8000/v1", description="OpenAI-compatible endpoint (vLLM, Ollama, ...)")
    model: str | None = Field(None, description="model name at the endpoint, or a local folder for transformers")
    api_key: SecretStr | None = Field(None, description="API key for the endpoint (else $OPENAI_API_KEY)")
    family: str | None = Field(None, description="prompt/coordinate family (ui-tars-1.5, qwen2.5-vl, ...); guessed "
                                                 "from the model name when unset")
    plan_mode: Literal["native", "som"] = Field("native", description="model gives coordinates, or picks marks")
    planner_timeout: float = Field(120.0, gt=0, description="seconds to wait for one model reply")
    planner_retries: int = Field(2, ge=0, description="retries on 429/5xx, with backoff")
    history_images: int = Field(3, ge=1, description="screenshots (current one included) sent to the model")
    token_budget: int = Field(16000, ge=1000, description="largest prompt, in estimated tokens")
    max_new_tokens: int = Field(512, ge=16, description="longest model reply")
    max_steps: int = Field(30, ge=1, le=1000, description="step limit of one run")
    dry_run: bool = Field(False, description="decide and log actions without moving the mouse or typing")
    monitor: int = Field(0, ge=0, description="0 = the whole virtual desktop, 1..n = one monitor")
    scale: float = Field(1.0, gt=0, description="HiDPI scale: physical pixels per logical pixel")
    stop_hotkey: str = Field("ctrl+shift+f12", description="global emergency-stop hotkey (not ctrl+alt+F-keys: "
                                                           "X11 turns those into virtual-terminal switches)")
    record_stop_hotkey: str = Field("ctrl+shift+f10", description="ends a recording")
    record_pause_hotkey: str = Field("ctrl+shift+f9", description="pauses and resumes a recording")
    confirm: ConfirmMode = Field("risky", description="ask before: never, risky actions, or always")
    min_action_interval: float = Field(0.05, ge=0, description="rate limit: seconds between two actions")
    locate_timeout: float = Field(3.0, ge=0, description="seconds to keep looking for a target that is not there yet")
    settle_timeout: float = Field(2.0, ge=0, description="longest wait for the screen to stop changing")
    ocr_threads: int = Field(0, ge=0, description="ONNX Runtime threads for OCR (0 = all cores)")

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
    except (OSError, ValueError) as exc:
        raise SettingsError(f"cannot read settings file {default_config_file()}: {exc}") from None
