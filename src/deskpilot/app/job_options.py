"""Command-line options made from a job's config dataclass, so that a job's options, their help and their one default
live in one place: each field with a `help` in its metadata is an option (`flag` names it when it is not `--field-
name`; `typer` adds typer.Option settings such as `min`; `cli` is (the option's type, a function from the option's
value to the field's) where the command line spells a value otherwise, e.g. tasks comma-separated); fields without
help are set by the code, not the person. The docs' CLI reference is generated from the same commands, and the app's
forms read defaults and help from the same fields (`field_help`, `field_default`)."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

Config = TypeVar("Config")


def job_command(config: type[Config], run: Callable[..., None], doc: str,
                extra: dict[str, tuple[Any, Any]] | None = None, **fixed: Any) -> Callable[..., None]:
    """A typer command whose options are `config`'s documented fields; it calls `run` with the config the person
    asked for (`fixed` values set the fields the command decides itself, e.g. the training method), and with the
    `extra` options that are not the job's (name -> (annotation, default)) as keyword arguments."""
    hints = typing.get_type_hints(config)
    parameters = []
    parse: dict[str, Callable[[Any], Any]] = {}
    for spec in dataclasses.fields(config):  # type: ignore[arg-type]
        if spec.name in fixed or "help" not in spec.metadata:
            continue
        flag = spec.metadata.get("flag")
        option = typer.Option(*([flag] if flag else []), help=spec.metadata["help"], **spec.metadata.get("typer", {}))
        kind, default = hints[spec.name], field_default(config, spec.name)
        if "cli" in spec.metadata:
            kind, parse[spec.name] = spec.metadata["cli"]
            default = None if default is not dataclasses.MISSING else default
        parameters.append(inspect.Parameter(spec.name, inspect.Parameter.KEYWORD_ONLY,
                                            default=inspect.Parameter.empty if default is dataclasses.MISSING
                                            else default, annotation=Annotated[kind, option]))
    parameters += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
                   for name, (annotation, default) in (extra or {}).items()]
    parameters.sort(key=lambda p: p.default is not inspect.Parameter.empty)  # the required ones first

    def command(**values: Any) -> None:
        others = {name: values.pop(name) for name in (extra or {})}
        for name, convert in parse.items():
            value = values.pop(name)
            if value is not None:
                values[name] = convert(value)
        run(config(**fixed, **values), **others)

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
