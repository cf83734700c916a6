"""Building the planner (and the chat backend) the settings ask for: the offline planner, the planner model
deskpilot ships (`learned`: a small causal LM trained here, in som-text mode), or a chat model at an endpoint or in
a local folder."""

from __future__ import annotations

import importlib.util
import ipaddress
import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from deskpilot.core.errors import PlannerError
from deskpilot.core.settings import Settings, stored_api_key

from deskpilot.grounding.base import Grounder

from .base import ChatBackend, Planner
from .families import resolve_family

OPENAI_HOST = "api.openai.com"
LEARNED = "planner"  # the folder under resources/models/ that holds the shipped planner model
LANGUAGE = "language-planner"  # ... and the language planner's adapter


def learned_model() -> Path:
    """The planner model deskpilot ships (trained here from its own collected episodes; see the README)."""
    return Path(str(resources.files("deskpilot.resources") / "models" / LEARNED))


def language_model() -> Path:
    """The language planner deskpilot ships: a LoRA adapter on the SmolLM2 backbone (`model init --base`)."""
    return Path(str(resources.files("deskpilot.resources") / "models" / LANGUAGE))


def build_planner(settings: Settings, on_text: Callable[[str], None] | None = None,
                  grounder: Grounder | None = None, example: str = "",
                  example_screen: np.ndarray | None = None) -> Planner:
    """The planner the settings ask for; `example` (a demonstration in words) and `example_screen` (its first
    screen, small) go into a vision-language model's prompt (the som-text models deskpilot trains read only what
    they were trained on)."""
    if settings.planner in ("offline", "auto"):
        from .offline import OfflinePlanner

        offline = OfflinePlanner(grounder)
        if settings.planner == "offline":
            return offline
        from .routing import RoutingPlanner

        return RoutingPlanner(offline, lambda: _language_planner(settings, on_text))
    if settings.planner in ("learned", "transformers"):
        _local_models_installed(settings.planner)
    if settings.planner == "learned":
        model = settings.model or str(learned_model())
        if not (Path(model) / "config.json").is_file():
            raise PlannerError(f"no planner model in {model}: this install ships none; train one (deskpilot model "
                               "init, then train sft --mode som-text) and pass it with --model")
        settings = settings.model_copy(update={"planner": "transformers", "model": model, "plan_mode": "som-text"})
    if settings.plan_mode == "som-text" or _language_model(settings):
        from .som_text import ANSWER_TOKENS
        from .text_planner import TextPlanner

        short = settings.model_copy(update={"max_new_tokens": min(settings.max_new_tokens, ANSWER_TOKENS)})
        return TextPlanner(build_backend(short, one_line=True), on_text=on_text, answers=settings.model_answers,
                           min_confidence=settings.min_confidence)
    from .model_planner import ModelPlanner

    chosen = resolve_family(settings.family, settings.model or "")
    return ModelPlanner(build_backend(settings), chosen, settings.plan_mode, max_images=settings.history_images,
                        token_budget=settings.token_budget, on_text=on_text, example=example,
                        example_screen=example_screen)


def _local_models_installed(planner: str) -> None:
    """A one-line error naming the planner asked for where torch or transformers is not installed."""
    missing = [name for name in ("torch", "transformers") if importlib.util.find_spec(name) is None]
    if missing:
        raise PlannerError(f"--planner {planner} runs a model on this machine, which needs {' and '.join(missing)} "
                           "(not in the plain install): pip install 'deskpilot[models]', or bash installers/setup.sh "
                           "--dev")


def _language_planner(settings: Settings, on_text: Callable[[str], None] | None) -> Planner | None:
    """The som-text planner `auto` sends other wordings to: `--model`, else the `language_model` setting (the
    language planner this install ships, or a folder); None where there is none. One greedy answer a step: its
    probability decides whether the agent acts."""
    chosen = settings.model or {"none": None, "shipped": str(language_model())}.get(settings.language_model,
                                                                                      settings.language_model)
    if chosen is None or not any((Path(chosen) / name).is_file() for name in ("adapter_config.json", "config.json")):
        return None
    language = settings.model_copy(update={"planner": "transformers", "model": chosen, "plan_mode": "som-text",
                                           "model_answers": 1})
    return build_planner(language, on_text=on_text)


def _language_model(settings: Settings) -> bool:
    """Whether `--planner transformers` names a text-only causal LM: it can only read elements as text."""
    if settings.planner != "transformers" or not settings.model:
        return False
    from .transformers_backend import is_causal_lm

    return is_causal_lm(settings.model)


def api_key_for(settings: Settings) -> str | None:
    """The API key to send to `settings.base_url`: deskpilot's own key (settings, DESKPILOT_API_KEY, the keyring)
    goes to the endpoint the user configured; $OPENAI_API_KEY only to OpenAI itself or to a server on this
    machine. No key ever travels in clear (plain http) to another machine."""
    url = urlsplit(settings.base_url)
    host = (url.hostname or "").lower()
    local = host == "localhost" or _is_loopback(host)
    key = (settings.api_key.get_secret_value() if settings.api_key else None) or stored_api_key()
    if not key and (host == OPENAI_HOST or local):
        key = os.environ.get("OPENAI_API_KEY")
    if key and url.scheme != "https" and not local:
        raise PlannerError(f"refusing to send the API key in clear to {settings.base_url}: use an https:// "
                           "endpoint, or a server on this machine")
    return key or None


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def build_backend(settings: Settings, one_line: bool = False) -> ChatBackend:
    """The chat model behind `--planner openai` (an endpoint) or `--planner transformers` (a local folder);
    `one_line`: the reply asked for is one line, and a local model's generation stops at its end."""
    if not settings.model:
        raise PlannerError(f"the {settings.planner} planner needs --model (a model name, or a local folder)")
    if settings.planner == "openai":
        from .openai_backend import OpenAIBackend

        key = api_key_for(settings)
        return OpenAIBackend(settings.base_url, settings.model, key, timeout=settings.planner_timeout,
                             max_retries=settings.planner_retries, max_tokens=settings.max_new_tokens,
                             temperature=settings.temperature)
    if settings.planner == "transformers":
        from .transformers_backend import TransformersBackend

        return TransformersBackend(settings.model, max_new_tokens=settings.max_new_tokens, int8=settings.model_int8,
                                   temperature=settings.temperature, one_line=one_line,
                                   static_cache=settings.model_compile)
    raise PlannerError(f"the {settings.planner} planner has no chat model")
