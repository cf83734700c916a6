"""Sums and equations a screen shows, worked out: "x + 4 = 25" solved for x (21), "7 - x = 3" (4), "12 × 3 =" (36).
Read by a small parser of numbers, one unknown, + - × ÷ and brackets — never Python's eval, since the screen is
untrusted input — where each side is linear in the unknown; anything else ("x × x = 4", letters that are not the
unknown, a division by zero) is no reading."""

from __future__ import annotations

import re
from fractions import Fraction

Linear = tuple[Fraction, Fraction]  # a·x + b, as (a, b)
TOKEN = re.compile(r"\s*(?:(?P<number>\d+(?:\.\d+)?)|(?P<name>[A-Za-z])|(?P<op>[-+*/()=×÷−–—·:]))")
OPERATORS = {"−": "-", "–": "-", "—": "-", "×": "*", "·": "*", "÷": "/", ":": "/"}
MAX_TOKENS = 40  # a longer line is no sum a task asks to work out
DECIMALS = 4  # places a result that is not whole is given to


def solve(text: str, unknown: str | None = None) -> str | None:
    """The value of `unknown` that makes the equation `text` hold, or with no unknown the value of the sum `text`
    ("3 + 4", "3 x 4 =": an "x" between numbers is a times sign there), written as a person would type it ("21",
    "-4", "2.5"); None where `text` is neither."""
    tokens = _tokens(text, unknown.lower() if unknown else None)
    if tokens is None or (unknown and ("x" not in tokens or "=" not in tokens)):
        return None
    if not unknown and not any(t in "+-*/" for t in tokens):
        return None  # a number alone ("59" read of "2 - x = 59") is no sum
    sides = _split(tokens)
    if sides is None:
        return None
    left, right = sides
    try:
        lhs = _Parser(left).whole()
        if right:
            rhs = _Parser(right).whole()
        elif lhs[0] == 0:
            return _written(lhs[1])  # a sum to work out: "3 + 4 ="
        else:
            return None
    except (ValueError, ZeroDivisionError):
        return None
    slope = lhs[0] - rhs[0]
    if slope == 0:
        return None  # no unknown, or it cancels: nothing to solve for
    return _written((rhs[1] - lhs[1]) / slope)


def _tokens(text: str, unknown: str | None) -> list[str] | None:
    """The tokens of `text`: numbers, "x" for the unknown, operators; None where it holds anything else."""
    tokens: list[str] = []
    position, text = 0, text.strip().rstrip("?").strip()
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None:
            return None
        position = match.end()
        if match.group("number"):
            tokens.append(match.group("number"))
        elif match.group("name"):
            name = match.group("name").lower()
            if unknown is None and name == "x":
                tokens.append("*")  # "3 x 4"
            elif name == unknown:
                tokens.append("x")
            else:
                return None
        else:
            tokens.append(OPERATORS.get(match.group("op"), match.group("op")))
    return tokens if 0 < len(tokens) <= MAX_TOKENS and any(t[0].isdigit() for t in tokens) else None


def _split(tokens: list[str]) -> tuple[list[str], list[str]] | None:
    """The two sides of one "=" (the right one empty for "3 + 4 ="), or the whole as the left where there is none."""
    if tokens.count("=") > 1:
        return None
    if "=" not in tokens:
        return tokens, []
    at = tokens.index("=")
    return (tokens[:at], tokens[at + 1:]) if at > 0 else None


class _Parser:
    """Recursive descent over one side: sum := term (("+"|"-") term)*; term := factor (("*"|"/") factor)*;
    factor := ("-"|"+") factor | number | "x" | "(" sum ")"; a factor followed by "x" or "(" multiplies it."""

    def __init__(self, tokens: list[str]):
        self.tokens, self.at = tokens, 0

    def whole(self) -> Linear:
        value = self._sum()
        if self.at != len(self.tokens):
            raise ValueError("tokens left over")
        return value

    def _peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self) -> str:
        token = self._peek()
        if token is None:
            raise ValueError("the expression ends early")
        self.at += 1
        return token

    def _sum(self) -> Linear:
        value = self._term()
        while self._peek() in ("+", "-"):
            sign = 1 if self._take() == "+" else -1
            term = self._term()
            value = (value[0] + sign * term[0], value[1] + sign * term[1])
        return value

    def _term(self) -> Linear:
        value = self._factor()
        while (token := self._peek()) in ("*", "/", "x", "("):  # "2x", "3(x + 1)": side by side, they multiply
            if token in ("*", "/"):
                self._take()
            other = self._factor()
            if token == "/":
                if other[0] != 0 or other[1] == 0:
                    raise ValueError("a division by the unknown or by zero")
                value = (value[0] / other[1], value[1] / other[1])
            elif value[0] != 0 and other[0] != 0:
                raise ValueError("not linear")
            else:
                value = (value[0] * other[1] + other[0] * value[1], value[1] * other[1])
        return value

    def _factor(self) -> Linear:
        token = self._take()
        if token in ("-", "+"):
            inner = self._factor()
            return inner if token == "+" else (-inner[0], -inner[1])
        if token == "x":
            return Fraction(1), Fraction(0)
        if token == "(":
            inner = self._sum()
            if self._take() != ")":
                raise ValueError("an unclosed bracket")
            return inner
        if token[0].isdigit():
            return Fraction(0), Fraction(token)
        raise ValueError(f"unexpected {token!r}")


def _written(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.{DECIMALS}f}".rstrip("0").rstrip(".")
