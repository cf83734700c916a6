"""Keeping secrets out of recordings: typed text is secret when it went into a field labelled like a password,
when it looks like a key or token, or when the whole recording masks typing. Secret text is redacted before
anything reaches disk."""

from __future__ import annotations

import math
import re
from collections import Counter

PASSWORD_LABEL = re.compile(r"pass(word|code|phrase)?|\bpin\b|secret|token|api[ _-]?key|cvv|security code", re.I)
TOKEN_PATTERNS = [re.compile(p) for p in (
    r"\bsk-[A-Za-z0-9_-]{16,}", r"\bAKIA[0-9A-Z]{16}\b", r"\bgh[pousr]_[A-Za-z0-9]{30,}",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}",
    r"\bAIza[0-9A-Za-z_-]{30,}", r"-----BEGIN [A-Z ]*PRIVATE KEY-----", r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
)]


def is_password_label(text: str) -> bool:
    return bool(PASSWORD_LABEL.search(text))


def looks_like_secret(text: str) -> bool:
    """API keys and tokens by their known shapes, or a long, space-free, high-entropy string."""
    if any(p.search(text) for p in TOKEN_PATTERNS):
        return True
    for word in text.split():
        if len(word) >= 20 and _entropy(word) >= 4.0 and sum(c.isdigit() for c in word) >= 3:
            return True
    return False


def _entropy(word: str) -> float:
    counts = Counter(word)
    return -sum(n / len(word) * math.log2(n / len(word)) for n in counts.values())
