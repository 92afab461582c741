"""Errors raised for bad user input.

An ``InputError`` names the file, the setting (as a dotted path such as
``evaluation.tau``), the column and the row at fault, so that the CLI can print one clear line
and exit with status 2 instead of a traceback.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Iterable
from typing import Any


class InputError(ValueError):
    """A user mistake in a data file, scenario, option or argument.

    Parameters
    ----------
    message:
        What was wrong and what was expected.
    file, field, column, row:
        Where the problem is: the file, the setting's dotted path (``evaluation.tau``,
        ``keys[1]``), the column and the 1-based data row (the header is not counted).
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        field: str | None = None,
        column: str | None = None,
        row: int | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.field = field
        self.column = column
        self.row = row
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.file is not None:
            where.append(f"file {self.file}")
        if self.field is not None:
            where.append(f"field {self.field}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        if self.row is not None:
            where.append(f"row {self.row}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


def did_you_mean(name: object, choices: Iterable[object]) -> str:
    """``"; did you mean 'age'?"`` when one of ``choices`` is close to ``name`` (the same name in
    other case first, then difflib's closest, as the scenario validator suggests a field), else
    ``""``: for a missing column or an unknown name."""
    pool = sorted(map(str, choices))
    close = [c for c in pool if c.casefold() == str(name).casefold()] or \
        difflib.get_close_matches(str(name), pool, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def dotted(loc: tuple[Any, ...], prefix: str = "") -> str:
    """``("evaluation", "cells", 0, "bins")`` → ``evaluation.cells[0].bins``."""
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def from_validation(exc: Any, *, model: type | None = None, context: str | None = None,
                    file: str | None = None, prefix: str = "") -> InputError:
    """One ``InputError`` for the first problem of a pydantic ``ValidationError``.

    The field is named by its dotted path; an unknown field gets the closest allowed name as a
    "did you mean" when ``model`` (the validated class) is given.
    """
    error = exc.errors(include_url=False)[0]
    loc = tuple(error["loc"])
    kind = error["type"]
    # an unknown field is not in the model: follow the model up to it, then name it
    loc = _user_path(model, loc[:-1]) + loc[-1:] if kind == "extra_forbidden" else _user_path(model, loc)
    inner = error.get("ctx", {}).get("error")
    if isinstance(inner, InputError):  # raised by a nested settings object
        field = ".".join(p for p in (dotted(loc, prefix), inner.field) if p)
        message = f"{context}: {inner.message}" if context else inner.message
        return InputError(message, file=file, field=field or None)
    message = _MESSAGES.get(kind, _got)(error, loc, model)
    if context:
        message = f"{context}: {message}"
    return InputError(message, file=file, field=dotted(loc, prefix) or None)


def _unknown_field(error: dict, loc: tuple[Any, ...], model: Any) -> str:
    allowed = _allowed_fields(model, loc[:-1]) if model is not None else []
    close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
    message = f"unknown field {loc[-1]!r}"
    return message + (f"; did you mean {close[0]!r}?" if close else (
        f"; allowed: {', '.join(sorted(allowed))}" if allowed else ""))


def _unknown_tag(error: dict, loc: tuple[Any, ...], model: Any) -> str:
    tags = [t.strip(" '") for t in error["ctx"]["expected_tags"].split(",")]
    close = difflib.get_close_matches(str(error["ctx"]["tag"]), tags, n=1)
    return f"unknown type {error['ctx']['tag']!r}; " + (
        f"did you mean {close[0]!r}?" if close else f"expected one of {', '.join(tags)}")


def _missing_tag(error: dict, loc: tuple[Any, ...], model: Any) -> str:
    message = f"needs a {error['ctx']['discriminator']}"
    if model is not None and "type" in error["ctx"]["discriminator"]:
        message += " (metric, nominal, ordinal, hierarchical or string)"
    return message


def _required(error: dict, loc: tuple[Any, ...], model: Any) -> str:
    return "this field is required"


def _failed_check(error: dict, loc: tuple[Any, ...], model: Any) -> str:
    return _expected(error)


def _got(error: dict, loc: tuple[Any, ...], model: Any) -> str:
    return f"{_expected(error)}, got {error.get('input')!r}"


#: The message of each kind of pydantic error, from the error, the user's location and the
#: model; any other kind says what was expected and what came (``_got``).
_MESSAGES = {"extra_forbidden": _unknown_field, "union_tag_invalid": _unknown_tag,
             "union_tag_not_found": _missing_tag, "missing": _required,
             "value_error": _failed_check, "assertion_error": _failed_check}


#: Pydantic's phrases and the plainer ones a statistician reads in their place.
_PLAIN = {
    "a valid number, unable to parse string as a number": "a number",
    "a valid number": "a number",
    "a valid integer, unable to parse string as an integer": "a whole number",
    "a valid integer, got a number with a fractional part": "a whole number",
    "a valid integer": "a whole number",
    "a valid list": "a list in brackets, e.g. [\"a\", \"b\"]",
    "a valid dictionary": "a table",
    "a valid string": "a text in quotes",
    "a valid boolean": "true or false",
    "a finite number": "a finite number",
}


def _expected(error: dict) -> str:
    text = error["msg"]
    for start in ("Input should be ", "Value error, ", "Assertion failed, "):
        if text.startswith(start):
            text = text[len(start):]
            if start != "Input should be ":
                return text
            text = _PLAIN.get(text, text)
            if text.startswith(("greater", "less")):
                text = "a value " + text
            elif text.startswith("a valid dictionary or instance of"):
                text = "a table or a text spelling"
            return "expected " + text
    return text[0].lower() + text[1:]


#: Labels pydantic puts into an error's location for the member of a union that failed: type
#: names and the tags of tagged unions (key types, the text or table form of a key or block).
_LABELS = {"str", "int", "float", "bool", "none", "list", "dict",
           "metric", "nominal", "ordinal", "hierarchical", "string", "date", "text", "table"}


def _is_label(part: Any) -> bool:
    return isinstance(part, str) and (part in _LABELS or "[" in part)


def _user_path(model: Any, loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """The parts of an error location a user wrote (field names, list positions, dict keys),
    without the labels of union members. With ``model`` the location is followed through the
    model's annotations, so a dict key that looks like a label (``metric``) is kept."""
    if model is None:
        return tuple(p for p in loc if not _is_label(p))
    current, out = [model], []
    for part in loc:
        written, current = _step(_unwrap(current), part)
        if written:
            out.append(part)
    return tuple(out)


def _step(kinds: list[Any], part: Any) -> tuple[bool, list[Any]]:
    """Whether the user wrote ``part`` of a location at the annotations ``kinds``, and the
    annotations below it (``kinds`` again for the label of the union member that failed)."""
    if isinstance(part, int):
        items = [a for k in kinds if typing.get_origin(k) in (list, tuple) for a in typing.get_args(k)]
        return True, [a for a in items if a is not Ellipsis] or kinds
    fields = [f for m in kinds if hasattr(m, "model_fields") for f in [_field(m, part)] if f is not None]
    if fields:
        return True, [f.annotation for f in fields]
    values = [typing.get_args(k)[1] for k in kinds if typing.get_origin(k) is dict and _is_key(k, part)]
    if values:
        return True, values
    return False, kinds


def _is_key(mapping: Any, part: str) -> bool:
    """Whether ``part`` is a key of the dict annotation ``mapping`` rather than a union label."""
    key = typing.get_args(mapping)[0]
    if typing.get_origin(key) is typing.Literal:
        return part in typing.get_args(key)
    return not _is_label(part)


def _unwrap(annotations: list[Any]) -> list[Any]:
    """The alternatives of the given annotations, through ``Annotated``, ``Optional`` and unions."""
    out, todo = [], list(annotations)
    while todo:
        annotation = todo.pop(0)
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            todo.append(typing.get_args(annotation)[0])
        elif origin in (typing.Union, types.UnionType):
            todo.extend(typing.get_args(annotation))
        else:
            out.append(annotation)
    return out


def _allowed_fields(model: Any, loc: tuple[Any, ...]) -> list[str]:
    """Field names (and aliases) at ``loc`` below ``model``, following lists, dicts and unions."""
    current = [model]
    for part in loc:
        if isinstance(part, int):
            continue
        nxt = []
        for cls in _models(current):
            field = _field(cls, part)
            if field is not None:
                nxt.append(field.annotation)
        current = nxt or current
    names: list[str] = []
    for cls in _models(current):
        for name, field in cls.model_fields.items():
            names.append(field.alias or name)
    return names


def _field(cls: Any, name: str) -> Any:
    for key, field in cls.model_fields.items():
        if name in (key, field.alias):
            return field
    return None


def _models(annotations: list[Any]) -> list[Any]:
    """Pydantic model classes inside the given annotations."""
    out, todo = [], list(annotations)
    while todo:
        annotation = todo.pop()
        if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
            out.append(annotation)
        else:
            todo.extend(a for a in typing.get_args(annotation) if not isinstance(a, (str, int, float)))
    return out


class DataNotice(UserWarning):
    """Something about the data worth knowing that does not stop the run (a column of numbers
    used as codes, a column one file lacks). Emitted through :mod:`warnings`, one line per kind
    and run, so ``warnings.simplefilter("ignore", attack.DataNotice)`` silences it; the command
    line prints it as ``attack: notice: ...`` on stderr unless ``--quiet``."""
