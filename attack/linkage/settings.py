"""The linkage settings as data behind a schema: one description for scenario files and the API.

``Linkage`` is the ``[linkage]`` table of a scenario file and the linkage arguments of
``attack.mass_attack``; both are validated here (pydantic), so a bad value gets the same
message wherever it is written. ``docs/reference/scenario-file.md`` describes the fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Discriminator, Field, Tag

from attack.errors import InputError
from attack.io.strict import SettingsModel
from attack.linkage.assignment import METHODS
from attack.linkage.distances import METRIC_DISTANCES, STANDARDISATIONS
from attack.linkage.keys import (
    AnyBlock,
    Block,
    KeyTable,
    as_block,
    as_key,
    blocking_entry,
    parse_block_entry,
    parse_key,
)
from attack.linkage.link import INTRUDERS, LinkageSpec


class SettingsTable(SettingsModel):
    """A table of settings: unknown fields are refused, values cannot change after validation."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def parses(parse: Callable[[Any], Any]) -> AfterValidator:
    """A validator that keeps a value as written once ``parse`` accepts it (a key's or a block's
    text spelling, a λ), turning its ``InputError`` into a validation error."""

    def check(value: Any) -> Any:
        try:
            parse(value)
        except InputError as exc:
            raise ValueError(exc.message) from None
        return value

    return AfterValidator(check)


def _by_form(value: Any) -> str:
    return "text" if isinstance(value, str) else "table"


#: A key: its text spelling (``"turnover:metric:0.5"``) or a table with a ``type``.
KeyEntry = Annotated[
    Annotated[str, parses(parse_key), Tag("text")] | Annotated[KeyTable, Tag("table")],
    Discriminator(_by_form),
]
#: A blocking key or cell: ``"nace"``, ``"nace:prefix=2"``, ``"employees:bins=20,50"`` or a table.
BlockEntry = Annotated[
    Annotated[str, parses(as_block), Tag("text")] | Annotated[Block, Tag("table")],
    Discriminator(_by_form),
]
#: A blocking entry: a block, or alternatives (``"surname:prefix=1|plz"``, ``{any = [...]}``),
#: each a blocking pass whose candidate pairs are united (``attack.linkage.passes``).
BlockingEntry = Annotated[
    Annotated[str, parses(parse_block_entry), Tag("text")] | Annotated[Block | AnyBlock, Tag("table")],
    Discriminator(_by_form),
]
Methods = Literal[METHODS]  # type: ignore[valid-type]
Standardisations = Literal[STANDARDISATIONS]  # type: ignore[valid-type]
MetricDistances = Literal[METRIC_DISTANCES]  # type: ignore[valid-type]
Intruders = Literal[INTRUDERS]  # type: ignore[valid-type]
Number = Annotated[float, Field(allow_inf_nan=False)]


class Linkage(SettingsTable):
    """How the intruder links (Destatis handbook, ch. 13)."""

    keys: list[KeyEntry] = Field(min_length=1, description="Overlap variables entering the distance.")
    block: list[BlockingEntry] = Field(default_factory=list, description="Blocking keys; an entry a|b offers "
                                       "alternatives whose blocking passes are united.")
    method: Methods = Field("greedy", description="One-to-one assignment procedure.")
    standardise: Standardisations = "maxmin"
    metric_distance: MetricDistances = "squared"
    seed: int | None = Field(None, ge=0, description="Shuffles the external order of the sequential method.")
    winsorise: bool = Field(False, description="Set a metric value that alone spans its key's range to the "
                                               "nearest other value instead of stopping the run.")
    intruder: Intruders = Field("distance", description="The intruder's model: weighted distances or "
                                                        "Fellegi–Sunter match weights.")
    learn_weights: float | None = Field(None, gt=0, lt=1, description="Share of the verifiable units the "
                                        "intruder knows; he learns the key weights from them and attacks the rest.")


class IntruderLinkage(SettingsTable):
    """An intruder's linkage: unset entries come from the scenario's ``[linkage]``."""

    keys: list[KeyEntry] | None = Field(None, min_length=1)
    block: list[BlockingEntry] | None = None
    method: Methods | None = None
    standardise: Standardisations | None = None
    metric_distance: MetricDistances | None = None
    seed: int | None = Field(None, ge=0)
    winsorise: bool | None = None
    intruder: Intruders | None = None
    learn_weights: float | None = Field(None, gt=0, lt=1)


def linkage_spec(table: Linkage | IntruderLinkage, default: LinkageSpec | None = None) -> LinkageSpec:
    """The ``LinkageSpec`` of a validated table; an intruder's unset entries fall back to
    ``default``."""
    fixed = table.model_dump(exclude_none=True, exclude={"keys", "block"})
    if table.keys is not None:
        fixed["keys"] = tuple(as_key(k).spec() for k in table.keys)
    if table.block is not None:
        entries = [blocking_entry(b) for b in table.block]
        alternatives = [e.any if isinstance(e, AnyBlock) else (e,) for e in entries]
        fixed["blocks"] = tuple(b.classifier() for group in alternatives for b in group)
        if any(len(group) > 1 for group in alternatives):
            fixed["block_groups"] = tuple(i for i, group in enumerate(alternatives) for _ in group)
        elif default is not None:
            fixed["block_groups"] = ()
    if default is not None:
        return replace(default, **fixed)
    return LinkageSpec(**fixed)


__all__ = ["BlockEntry", "BlockingEntry", "IntruderLinkage", "KeyEntry", "Linkage", "Number", "SettingsTable", "linkage_spec",
           "parses"]
