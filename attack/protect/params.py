"""The schema of a protection method's parameters, built from its ``Param`` declarations.

The catalogue validates a user's parameters with it (``parse_params``: ``key=value`` text or
typed values), and ``attack.protect.validated`` puts it in front of a method's public function,
so one declaration rules both ways in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Annotated, Any, Literal

import pandas as pd
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, create_model

from attack.errors import InputError, from_validation
from attack.io.readers import Table
from attack.protect.mapping_file import read_mapping
from attack.protect.registry import METHODS, REQUIRED, Method

__all__ = ["params_model", "parse_params"]


def parse_params(method: Method, pairs: Sequence[str] | Mapping[str, Any]) -> dict[str, Any]:
    """Typed parameters of ``method`` from ``key=value`` strings (or a mapping of already typed
    values, as in a scenario file), with the defaults filled in, validated by the method's
    schema (``params_model``); unknown or missing ones fail with the parameter named."""
    given: dict[str, Any] = {}
    if isinstance(pairs, Mapping):
        given = dict(pairs)
    else:
        for pair in pairs:
            if "=" not in pair:
                raise InputError(f"--param must look like key=value, got {pair!r}")
            key, value = pair.split("=", 1)
            given[key.strip()] = value.strip()
    model = _params_model(method)
    try:
        return dict(model.model_validate(given))
    except ValidationError as exc:
        error = from_validation(exc, model=model)
    message = error.message.replace("unknown field", "unknown parameter").replace("this field", "this parameter")
    raise InputError(f"method {method.name}, parameter {error.field}: {message}")


def params_model(name: str) -> type[BaseModel]:
    """The pydantic schema of a method's parameters, built from its ``Param`` declarations:
    numbers and flags parsed from text as well, within the declared bounds, a choice among its
    values, a list from ``a|b`` (groups ``a|b;c|d``), a mapping or matrix read from a CSV file."""
    return _params_model(METHODS[name])


@cache
def _params_model(method: Method) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for param_name, param in method.params.items():
        annotation = _ANNOTATIONS[param.kind]
        if param.choices:
            annotation = Literal[param.choices]
        if param.default is not REQUIRED and param.default is None:
            annotation = annotation | None
        default = ... if param.default is REQUIRED else param.default
        fields[param_name] = (annotation, Field(default, description=param.description or None, ge=param.ge,
                                                gt=param.gt, le=param.le, lt=param.lt))
    return create_model(f"{method.name}-parameters",
                        __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=True), **fields)


def _listed(value: Any) -> Any:
    if isinstance(value, str):
        nested = [[x.strip() for x in part.split("|") if x.strip()] for part in value.split(";")]
        return nested if ";" in value else nested[0]
    return value


def _mapping(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    return read_mapping(str(value))


def _matrix(value: Any) -> Any:
    """A matrix given in memory, or read from a CSV file (a table named after the file)."""
    if isinstance(value, (Table, pd.DataFrame)):
        return value
    from attack.io.readers import read_table

    frame = read_table(str(value))
    return Table(frame.set_index(frame.columns[0]).apply(pd.to_numeric, errors="coerce"), str(value))


def _file_value(read: Callable[[Any], Any]) -> BeforeValidator:
    def check(value: Any) -> Any:
        try:
            return read(value)
        except InputError as exc:
            raise ValueError(exc.message) from None

    return BeforeValidator(check)


def _no_boolean(value: Any) -> Any:
    """A number is never read from true/false (a scenario's ``k = true`` is not k = 1)."""
    items = value if isinstance(value, list) else [value]
    if any(isinstance(v, bool) for v in items):
        raise ValueError(f"expected a number, got {str(value).lower()}")
    return value


_NUMBER = BeforeValidator(_no_boolean)
_FINITE = Annotated[float, Field(allow_inf_nan=False)]
_ANNOTATIONS: dict[str, Any] = {
    "int": Annotated[int, _NUMBER],
    "float": Annotated[_FINITE, _NUMBER],
    "str": str,
    "bool": bool,
    "list": Annotated[list, BeforeValidator(_listed)],
    # items checked one by one: "1|x" names the item that is no number (validators run last first)
    "ints": Annotated[list[int], _NUMBER, BeforeValidator(_listed)],
    "numbers": Annotated[list[_FINITE], _NUMBER, BeforeValidator(_listed)],
    "mapping": Annotated[dict, _file_value(_mapping)],
    "matrix": Annotated[Any, _file_value(_matrix)],
}
