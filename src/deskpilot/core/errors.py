"""Exception types a user can cause, one per part. The CLI and the app print their message, never a traceback."""


class DeskpilotError(Exception):
    """Base of every error whose message is meant for the user."""


class ActionParseError(DeskpilotError):
    """Model or user text that is not a valid action."""


class EpisodeError(DeskpilotError):
    """A missing or unreadable episode."""


class ScreenError(DeskpilotError):
    """No display, or the screen cannot be captured."""


class ControllerError(DeskpilotError):
    """An action could not be carried out with the mouse or keyboard."""


class SafetyStop(DeskpilotError):
    """The emergency stop (hotkey or failsafe corner) was triggered."""


class GoalFailed(DeskpilotError):
    """The screen contradicts the task: an error shown, or the check before "done" failed (outcome `failed`)."""


class ActionRefused(DeskpilotError):
    """The safety policy refused an action (confirmation denied, forbidden target)."""


class GroundingError(DeskpilotError):
    """A described element could not be found, or the OCR engine failed."""


class PlannerError(DeskpilotError):
    """The planner could not decide the next action (unknown instruction, bad model output)."""


class UnusableAnswerError(PlannerError):
    """The model answered, but no answer is an action this screen allows (a value the task does not have, an
    argument the action does not take): a verdict on the model's output, not a failure to reach the model."""


class SettingsError(DeskpilotError):
    """A bad configuration file or environment variable."""


class RecorderError(DeskpilotError):
    """A recording that cannot be made, merged or replayed as asked."""


class TrainingError(DeskpilotError):
    """Bad training data, configuration or checkpoint; a training run that cannot start or go on."""


class LabellingError(DeskpilotError):
    """A verifier that does not exist, or options it cannot work with."""


class EvaluationError(DeskpilotError):
    """A benchmark environment (MiniWoB++ in Chromium, the desktop suite) that cannot start or be scored."""


class UsageError(DeskpilotError):
    """A command-line option or argument that cannot be used as given."""
