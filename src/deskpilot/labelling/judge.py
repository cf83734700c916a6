"""The `judge` step verifier: a vision-language model (any planner backend: an OpenAI-compatible endpoint or a
local transformers model) is shown the task, the steps so far, the step's action, and the screenshots before
(with the action drawn on it) and after, and answers a fixed JSON schema: verdict correct / incorrect / unsure,
a confidence and a reason (STEVE's recipe of labelling each step from the screens around it).

An answer that is not that JSON is asked for once more; a second bad answer leaves the step unknown."""

from __future__ import annotations

import json
import re

from deskpilot.core.episode import Episode, Step
from deskpilot.grounding.annotate import annotate
from deskpilot.planner.base import ChatBackend, ask_with_one_correction
from deskpilot.planner.context import Screenshot
from deskpilot.resources import RESOURCES_DIR

from deskpilot.core.verdict import Label, Verdict

PROMPT_FILE = RESOURCES_DIR / "prompts" / "judge_step.txt"
VERDICT_LABELS: dict[str, Label] = {"correct": "good", "incorrect": "bad", "unsure": "unknown"}
CORRECTION = ('That was not the JSON object asked for ({error}). Answer with exactly one JSON object: '
              '{{"verdict": "correct" | "incorrect" | "unsure", "confidence": <0 to 1>, "reason": "..."}}')


class UnusableAnswer(ValueError):
    """The judge's reply is not the JSON object it was asked for."""


class JudgeVerifier:
    name = "judge"

    def __init__(self, backend: ChatBackend):
        self.backend = backend
        self.instructions = PROMPT_FILE.read_text(encoding="utf-8")

    def judge_episode(self, episode: Episode, only: int | None = None) -> list[Verdict | None]:
        """A verdict per step (None where there is nothing to judge); with `only`, just that step (0-based)."""
        verdicts: list[Verdict | None] = []
        for index, step in enumerate(episode.steps):
            if step.action.is_terminal or step.after is None or step.dry_run or only not in (None, index):
                verdicts.append(None)
                continue
            verdicts.append(self.judge(episode, step))
        return verdicts

    def judge(self, episode: Episode, step: Step) -> Verdict:
        try:
            return ask_with_one_correction(self.backend, self.messages(episode, step), self.parse, UnusableAnswer,
                                           lambda error: CORRECTION.format(error=error))[1]
        except UnusableAnswer as second:
            return Verdict("unknown", f"the judge's answer could not be used: {second}", 0.5, self.name)

    def messages(self, episode: Episode, step: Step) -> list[dict[str, object]]:
        before, after = episode.frame(step.before), episode.frame(step.after or step.before)
        marked = annotate(before, step.monitor_for(before), [], step.action)
        earlier = [f"{s.index + 1}. {s.action.redacted().describe()}" for s in episode.steps if s.index < step.index]
        text = (f"Task: {episode.meta.task}\n"
                f"Steps so far:\n{chr(10).join(earlier) if earlier else '(none)'}\n"
                f"Step to judge: {step.index + 1}. {step.action.redacted().describe()}"
                + (f"\nThe agent's reasoning: {step.thought}" if step.thought else ""))
        return [{"role": "system", "content": self.instructions},
                {"role": "user", "content": [
                    {"type": "text", "text": text},
                    {"type": "text", "text": "BEFORE:"}, _image(marked),
                    {"type": "text", "text": "AFTER:"}, _image(after)]}]

    def parse(self, reply: str) -> Verdict:
        match = re.search(r"\{.*\}", reply, re.DOTALL)
        if match is None:
            raise UnusableAnswer(f"no JSON object in {reply.strip()[:80]!r}")
        try:
            data = json.loads(match.group(0))
        except json.JSONDecodeError as exc:
            raise UnusableAnswer(f"invalid JSON: {exc.msg}") from None
        verdict = str(data.get("verdict", "")).strip().lower() if isinstance(data, dict) else ""
        if verdict not in VERDICT_LABELS:
            raise UnusableAnswer(f"verdict must be correct, incorrect or unsure, not {verdict!r}")
        try:
            confidence = min(1.0, max(0.0, float(data.get("confidence", 0.5))))
        except (TypeError, ValueError):
            raise UnusableAnswer("confidence must be a number from 0 to 1") from None
        label = VERDICT_LABELS[verdict]
        score = {"good": confidence, "bad": 1 - confidence}.get(label, 0.5)
        reason = str(data.get("reason", "")).strip() or f"the judge said {verdict}"
        return Verdict(label, reason[:300], score, self.name)


def _image(image) -> dict[str, object]:  # noqa: ANN001 - an RGB array
    return {"type": "image_url", "image_url": {"url": Screenshot.of(image).url}}

