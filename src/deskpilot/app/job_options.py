"""Command-line options made from a job's config dataclass, so that a job's options, their help and their one
default live in one place: each field with a `help` in its metadata is an option (`flag` names it when it is not
`--field-name`; `typer` adds typer.Option settings such as `min`); fields without help are set by the code, not
the person. The docs' CLI reference is generated from the same commands, and the app's forms read defaults and
help from the same fields (`field_help`, `field_default`)."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

Config = TypeVar("Config")


def job_command(config: type[Config], run: Callable[[Config], None], doc: str, **fixed: Any) -> Callable[..., None]:
    """A typer command whose options are `config`'s documented fields; it calls `run` with the config the person
    asked for (`fixed` values set the fields the command decides itself, e.g. the training method)."""
    hints = typing.get_type_hints(config)
    parameters = []
    for spec in dataclasses.fields(config):  # type: ignore[arg-type]
        if spec.name in fixed or "help" not in spec.metadata:
            continue
        flag = spec.metadata.get("flag")
        option = typer.Option(*([flag] if flag else []), help=spec.metadata["help"], **spec.metadata.get("typer", {}))
        default = field_default(config, spec.name)
        parameters.append(inspect.Parameter(spec.name, inspect.Parameter.KEYWORD_ONLY,
                                            default=inspect.Parameter.empty if default is dataclasses.MISSING
                                            else default, annotation=Annotated[hints[spec.name], option]))
    parameters.sort(key=lambda p: p.default is not inspect.Parameter.empty)  # the required ones first

    def command(**values: Any) -> None:
        run(config(**fixed, **values))

    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__doc__ = doc
    return command


def field_default(config: type[Any], name: str) -> Any:
    """The one default of a config field (dataclasses.MISSING when it has none)."""
    spec = next(f for f in dataclasses.fields(config) if f.name == name)
    if spec.default_factory is not dataclasses.MISSING:
        return spec.default_factory()
    return spec.default


def field_help(config: type[Any], name: str) -> str:
    """A config field's help text ("" when it has none)."""
    return str(next(f for f in dataclasses.fields(config) if f.name == name).metadata.get("help", ""))
