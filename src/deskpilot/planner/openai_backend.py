"""Chat backend for any OpenAI-compatible endpoint: vLLM, SGLang, Ollama, llama.cpp's server, LM Studio, hosted
APIs. Uses the official `openai` client (timeouts; retries with backoff on 429 and 5xx; streaming) and turns its
failures into one-line PlannerErrors that say what to do. The API key is never logged or stored."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from deskpilot.core.action_text import MAX_RESPONSE_CHARS
from deskpilot.core.errors import PlannerError

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

log = logging.getLogger(__name__)


class OpenAIBackend:
    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0,
                 max_retries: int = 2, max_tokens: int = 512, temperature: float = 0.0, stream: bool = True):
        import openai

        self._openai = openai
        self.name = f"openai:{model}"
        self.base_url = base_url
        self.model = model
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.stream = stream
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout,
                                     max_retries=max_retries)

    def complete(self, messages: list[dict[str, object]], on_text: Callable[[str], None] | None = None) -> str:
        errors = self._openai
        try:
            if not self.stream:
                return self._checked(self._whole_reply(messages, on_text))
            pieces: list[str] = []
            received = 0
            stream = self._client.chat.completions.create(model=self.model, messages=_chat(messages),
                                                         max_tokens=self.max_tokens, temperature=self.temperature,
                                                         stream=True)
            with stream:
                for chunk in stream:
                    delta = chunk.choices[0].delta.content if chunk.choices else None
                    if delta:
                        received += len(delta)
                        if received > MAX_RESPONSE_CHARS:
                            raise PlannerError(f"{self.model} sent more than {MAX_RESPONSE_CHARS} characters; "
                                               "stopped reading (lower max_new_tokens?)")
                        pieces.append(delta)
                        if on_text:
                            on_text(delta)
            return self._checked("".join(pieces))
        except errors.AuthenticationError:
            raise PlannerError(f"{self.base_url} rejected the API key (401): set DESKPILOT_API_KEY (or OPENAI_API_KEY) "
                               "or api_key in the settings file") from None
        except errors.NotFoundError:
            raise PlannerError(f"{self.base_url} has no model {self.model!r} (404): check --model and --base-url "
                               "(it usually ends in /v1)") from None
        except errors.RateLimitError:
            raise PlannerError(f"{self.base_url} kept answering 429 (rate limited) after retries; wait and try "
                               "again") from None
        except errors.APITimeoutError:
            raise PlannerError(f"{self.base_url} did not answer within the planner timeout") from None
        except errors.APIConnectionError:
            raise PlannerError(f"cannot reach {self.base_url}: is the server running?") from None
        except errors.APIStatusError as exc:
            raise PlannerError(f"{self.base_url} answered HTTP {exc.status_code}: {_short(exc.message)}") from None
        except errors.APIError as exc:
            raise PlannerError(f"{self.base_url} sent a reply that is not a chat completion: "
                               f"{_short(str(exc))}") from None

    def _whole_reply(self, messages: list[dict[str, object]], on_text: Callable[[str], None] | None) -> str | None:
        """A non-streamed reply, read from the wire with a size limit (a server cannot make us hold megabytes)."""
        import json

        limit = MAX_RESPONSE_CHARS * 8  # bytes of JSON around at most MAX_RESPONSE_CHARS characters of text
        with self._client.chat.completions.with_streaming_response.create(
                model=self.model, messages=messages, max_tokens=self.max_tokens,  # type: ignore[arg-type]
                temperature=self.temperature) as response:
            body = bytearray()
            for part in response.iter_bytes():
                body += part
                if len(body) > limit:
                    raise PlannerError(f"{self.base_url} sent a reply over {limit // 1000} kB; stopped reading")
        try:
            choices = json.loads(body).get("choices") or []
            text = choices[0]["message"]["content"] if choices else None
        except (ValueError, AttributeError, KeyError, IndexError, TypeError):
            raise PlannerError(f"{self.base_url} sent a reply that is not a chat completion") from None
        if text is not None and not isinstance(text, str):
            raise PlannerError(f"{self.base_url} sent a reply whose content is not text")
        if text and len(text) > MAX_RESPONSE_CHARS:
            raise PlannerError(f"{self.model} sent more than {MAX_RESPONSE_CHARS} characters")
        if on_text and text:
            on_text(text)
        return text

    def _checked(self, text: str | None) -> str:
        if not text or not text.strip():
            raise PlannerError(f"{self.model} returned an empty reply")
        return text


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _chat(messages: list[dict[str, object]]) -> list[ChatCompletionMessageParam]:
    """The messages as the OpenAI client types them (they are built to the chat API's shape)."""
    return cast("list[ChatCompletionMessageParam]", messages)
