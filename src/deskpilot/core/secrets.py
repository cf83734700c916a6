"""Secrets: what counts as one, finding them in a task's text, and keeping them off disk, screens and prompts.

A field is secret when its label reads like a password, PIN, token or key; a value is secret when the task names
it as such (`the password "hunter2"`, `PIN: 1234`) or when it has the shape of a known key or token. Model planners
never see a task's secret values: the task they get carries `{{password}}`-style placeholders, and deskpilot types
the real value only into a field whose label fits (see core/safety.py)."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace

from .observation import Element
from .task_text import look_alike

REDACTED = "[redacted]"
# Whole words only: "Passenger", "Passport" and "Compass" are not password fields. Covers the languages the risk
# words cover (German, French, Spanish, Chinese, Japanese), whose labels a form may carry.
SECRET_LABEL = re.compile(r"\b(?:pass(?:word|code|phrase)?|passwort|kennwort|pwd|pin|secret|token|api[ _-]?key|"
                          r"credit[ _-]?card|cvv|cvc|security[ _-]?code|mot de passe|contrase(?:ñ|n)a|"
                          r"clave|geheimzahl)s?\b|密码|密碼|口令|パスワード|暗証番号", re.I)
TOKEN_PATTERNS = [re.compile(p) for p in (
    r"\bsk-[A-Za-z0-9_-]{16,}", r"\bAKIA[0-9A-Z]{16}\b", r"\bgh[pousr]_[A-Za-z0-9]{30,}",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}",
    r"\bAIza[0-9A-Za-z_-]{30,}", r"-----BEGIN [A-Z ]*PRIVATE KEY-----", r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
)]
PLACEHOLDER = re.compile(r"\{\{\s*([a-z][a-z0-9_]*)\s*\}\}")
# `password "x"`, `password: x`, `the password is x`, `with PIN 1234`: a secret label, then its value. An unquoted
# value needs "is", ":" or "=" before it, or a digit or symbol in it ("Password confirmation" names no value).
_LABEL = r"(?P<label>" + SECRET_LABEL.pattern + r")"
_NAMED_VALUES = [re.compile(p, re.I) for p in (
    _LABEL + r"(?:\s+(?:is|was|of|to|as|be))?\s*[:=]?\s*(?:\"(?P<dq>[^\"]+)\"|“(?P<cq>[^”]+)”|'(?P<sq>[^']+)'(?=\W|$))",
    # a passphrase is words: it runs to the end of the clause
    r"(?P<label>passphrase)(?:\s+is\s+|\s*[:=]\s*)(?P<bare>[^\"'“,;.!?\n]+?)(?=\s+(?:and|then|into|in|to|for|on)\b|"
    r"[,;.!?\n]|$)",
    _LABEL + r"(?:\s+is\s+|\s*[:=]\s*)(?P<bare>[^\s\"'“,;]+)",
    _LABEL + r"\s+(?P<bare>[^\s\"'“,;]*[0-9_@#$%^&*!?\-][^\s\"'“,;]*)",
)]
_STOP_WORDS = {"field", "box", "input", "textbox", "and", "the", "into", "in", "then", "from", "with", "for"}


@dataclass(frozen=True)
class TaskSecret:
    """A secret value found in a task, and the placeholder name a model uses for it (`password` -> {{password}})."""

    name: str
    value: str

    @property
    def placeholder(self) -> str:
        return "{{" + self.name + "}}"


def is_secret_label(text: str) -> bool:
    """Whether a field label (or a description of a field) reads like a password, PIN, token or key."""
    return bool(SECRET_LABEL.search(text))


def looks_like_secret(text: str) -> bool:
    """API keys and tokens by their known shapes, or a long, space-free, high-entropy string."""
    return any(True for _ in _secret_spans(text))


def redact_tokens(text: str) -> str:
    """`text` with every key- or token-shaped part replaced by [redacted] (OCR text beside a Copy button)."""
    spans = sorted(_secret_spans(text), reverse=True)
    for start, end in spans:
        text = text[:start] + REDACTED + text[end:]
    return text


def _secret_spans(text: str) -> list[tuple[int, int]]:
    spans = [m.span() for p in TOKEN_PATTERNS for m in p.finditer(text)]
    for word in re.finditer(r"\S{20,}", text):
        value = word.group(0)
        if _entropy(value) >= 4.0 and sum(c.isdigit() for c in value) >= 3:
            spans.append(word.span())
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def task_secrets(task: str) -> list[TaskSecret]:
    """The secret values a task names, each with a placeholder name; key- and token-shaped values too."""
    found: list[TaskSecret] = []
    names: Counter[str] = Counter()

    def add(label: str, value: str) -> None:
        value = value.strip()
        if not value or value.lower() in _STOP_WORDS or any(value in s.value for s in found):
            return
        base = re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_") or "secret"
        base = "password" if base.startswith("pass") else base
        names[base] += 1
        found.append(TaskSecret(base if names[base] == 1 else f"{base}_{names[base]}", value))

    for pattern in _NAMED_VALUES:
        for match in pattern.finditer(task):
            groups = match.groupdict()
            value = next(groups[g] for g in ("dq", "cq", "sq", "bare") if groups.get(g) is not None)
            add(match.group("label"), value.rstrip(".!?") if groups.get("bare") else value)
    for start, end in _secret_spans(task):
        add("secret", task[start:end].strip("\"'“”"))
    return found


def mask_secrets(text: str, secrets: list[TaskSecret]) -> str:
    """`text` with each secret value replaced by its placeholder (longest first), for what a model may read."""
    for secret in sorted(secrets, key=lambda s: len(s.value), reverse=True):
        text = _whole(secret.value).sub(lambda _: secret.placeholder, text)
    return text


def scrub(text: str, values: list[str]) -> str:
    """`text` with every secret value in it replaced by [redacted], longest first; the words of a passphrase too
    (4 characters and more), wherever they stand: a passphrase broken over two lines, or half echoed, is still
    one."""
    for value in sorted(_with_words(values), key=len, reverse=True):
        text = _whole(value).sub(REDACTED, text)
    return text


def _with_words(values: list[str]) -> set[str]:
    found = {v for v in values if v}
    for value in list(found):
        words = value.split()
        if len(words) > 1:
            found.update(word for word in words if len(word) >= 4)
    return found


def shares_secret(text: str, secret: TaskSecret) -> bool:
    """Whether `text` holds the secret or a large part of it: at least half of it, and 4 characters or more (the
    whole of a shorter one), in one piece. A password typed in two halves gives itself away at each half."""
    value = secret.value
    if not value or not text:
        return False
    need = len(value) if len(value) < 4 else max(4, (len(value) + 1) // 2)
    return any(value[start:start + need] in text for start in range(len(value) - need + 1))


class StreamScrubber:
    """Scrubs text that arrives in pieces (a streamed model reply): a secret split across two pieces is caught,
    because the last characters of what came are held back until the next piece or `flush`."""

    def __init__(self, values: list[str]):
        self.values = [v for v in values if v]
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        keep = max((len(v) for v in self.values), default=1) - 1
        cut = len(text) - keep if keep else len(text)
        while 0 < cut < len(text) and text[cut - 1].isalnum() and text[cut].isalnum():
            cut -= 1  # never hand out half a word: the rest of it may make it a secret
        ready, self._held = text[:max(cut, 0)], text[max(cut, 0):]
        return redact_tokens(scrub(ready, self.values))

    def flush(self) -> str:
        text, self._held = self._held, ""
        return redact_tokens(scrub(text, self.values))


def scrub_read(text: str, values: list[str]) -> str:
    """`scrub` for text read off the screen, which OCR may have misread ("wcdKF" for the password "wcdKf"): besides
    exact matches, a value the text itself names as secret (`password "x"`) and any word that equals a secret
    up to case and look-alike characters, or (4 characters and more) is one character off, become [redacted]."""
    named = [m["value"] for m in _SHOWN_VALUE.finditer(text)]
    text = scrub(text, [*values, *named, *(secret.value for secret in task_secrets(text))])
    wanted = [look_alike(v) for v in values if v]
    if not wanted:
        return text

    def near(match: re.Match[str]) -> str:
        word = look_alike(match.group(0))
        return REDACTED if any(word == v or (len(v) >= 4 and _one_edit_apart(word, v)) for v in wanted) \
            else match.group(0)

    return _WORD.sub(near, text)


def scrubbed_elements(elements: list[Element], values: list[str]) -> list[Element]:
    """Elements as they may be written down or shown to a model: no secret value (`scrub_read`) and no key- or
    token-shaped text (`redact_tokens`) in their text."""
    return [replace(e, text=redact_tokens(scrub_read(e.text, values))) if e.text else e for e in elements]


# `password"Au"into`: OCR drops the spaces around a quoted value, so on the screen any quote may follow it
_SHOWN_VALUE = re.compile(_LABEL + r"\s*[:=]?\s*[\"'“”‘’](?P<value>[^\"'“”‘’\s]{1,40})[\"'“”‘’]", re.I)
_WORD = re.compile(r"(?<!\[)\b[^\W_]+\b(?!\])")  # a run of letters and digits, not the word inside [redacted]


def _one_edit_apart(a: str, b: str) -> bool:
    """Whether one substitution, insertion or deletion turns `a` into `b`."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return a == b
    if len(a) > len(b):
        a, b = b, a
    for index, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return a[index + (len(a) == len(b)):] == b[index + 1:]
    return True


def _whole(value: str) -> re.Pattern[str]:
    """Where `value` stands on its own: a short password "AU" is not the "au" inside "autumn"."""
    return re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)")


def fill_placeholders(text: str, secrets: list[TaskSecret]) -> tuple[str, list[TaskSecret]]:
    """`text` with `{{name}}` placeholders replaced by their values, and the secrets used. An unknown placeholder
    stays as it is (the model made it up)."""
    by_name = {s.name: s for s in secrets}
    used: list[TaskSecret] = []

    def fill(match: re.Match[str]) -> str:
        secret = by_name.get(match.group(1))
        if secret is None:
            return match.group(0)
        used.append(secret)
        return secret.value

    return PLACEHOLDER.sub(fill, text), used


def _entropy(word: str) -> float:
    counts = Counter(word)
    return -sum(n / len(word) * math.log2(n / len(word)) for n in counts.values())
