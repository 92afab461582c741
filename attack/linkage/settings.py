"""The linkage settings as data behind a schema: one description for scenario files, the API and
the engine.

``Linkage`` is the ``[linkage]`` table of a scenario file, the linkage arguments of
``attack.mass_attack`` and what ``attack.linkage.link.link`` runs; it is validated here (pydantic),
so a bad value gets the same message wherever it is written. Keys and blocks given as text are
held as typed objects (``attack.linkage.keys``, ``attack.linkage.blocking.Block``) and written
back as text. ``IntruderLinkage``, an intruder's override, is the same model with every entry
optional. ``docs/reference/scenario-file.md`` describes the fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional

import pandas as pd
from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    create_model,
    model_validator,
)

from attack.errors import InputError
from attack.io.strict import SettingsModel
from attack.linkage.assignment import METHODS
from attack.linkage.blocking import AnyBlock, Block, Blocking, as_block, blocking_entry, make_blocks
from attack.linkage.column import entry_validator
from attack.linkage.distances import METRIC_DISTANCES, STANDARDISATIONS
from attack.linkage.fellegi_sunter import INTRUDERS
from attack.linkage.keys import KeyEntry
from attack.linkage.passes import block_passes, make_pass_blocks


def parse_cluster(text: str) -> tuple[str, str]:
    """``"hid"`` (the same column in both files) or ``"ext_hid:rel_hid"``: the external and the
    release cluster (or wave) columns."""
    external, colon, release = str(text).partition(":")
    if not external or (colon and not release) or ":" in release:
        raise InputError(f"expected a column, or EXT_COLUMN:REL_COLUMN, not {text!r}")
    return external, release or external


class SettingsTable(SettingsModel):
    """A table of settings: unknown fields are refused, values cannot change after validation."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def parses(parse: Callable[[Any], Any]) -> AfterValidator:
    """A validator that keeps a value as written once ``parse`` accepts it (a λ, a grid),
    turning its ``InputError`` into a validation error."""

    def check(value: Any) -> Any:
        try:
            parse(value)
        except InputError as exc:
            raise ValueError(exc.message) from None
        return value

    return AfterValidator(check)


def _written(value: Block | AnyBlock) -> str | dict:
    return value.to_data()


#: A blocking key or cell: ``"nace"``, ``"nace:prefix=2"``, ``"employees:bins=20,50"`` or a table.
BlockEntry = Annotated[Block, BeforeValidator(entry_validator(as_block), json_schema_input_type=str | Block),
                       PlainSerializer(_written)]
#: A blocking entry: a block, or alternatives (``"surname:prefix=1|plz"``, ``{any = [...]}``),
#: each a blocking pass whose candidate pairs are united (``attack.linkage.passes``).
BlockingEntry = Annotated[Block | AnyBlock,
                          BeforeValidator(entry_validator(blocking_entry), json_schema_input_type=str | Block | AnyBlock),
                          PlainSerializer(_written)]
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
    method: Methods = Field(default="greedy", description="One-to-one assignment procedure.")
    standardise: Standardisations = "maxmin"
    metric_distance: MetricDistances = "squared"
    seed: int | None = Field(default=None, ge=0, description="Shuffles the external order of the sequential method.")
    winsorise: bool = Field(default=False, description="Set a metric value that alone spans its key's range to the "
                                               "nearest other value instead of stopping the run.")
    intruder: Intruders = Field(default="distance", description="The intruder's model: weighted distances or "
                                                        "Fellegi–Sunter match weights.")
    learn_weights: float | None = Field(default=None, gt=0, lt=1, description="Share of the verifiable units the "
                                        "intruder knows; he learns the key weights from them and attacks the rest.")
    cluster: Annotated[str, parses(parse_cluster)] | None = Field(default=None, description="Cluster column "
                                    "(COLUMN, or EXT_COLUMN:REL_COLUMN): the intruder links whole clusters, then "
                                    "their members (docs/method/structure.md).")
    wave: Annotated[str, parses(parse_cluster)] | None = Field(default=None, description="Wave column of long "
                                 "panel files (COLUMN, or EXT_COLUMN:REL_COLUMN): the intruder combines a unit's "
                                 "waves (docs/method/structure.md).")
    trajectory: bool = Field(default=False, description="With wave: the growth of every metric key between "
                             "consecutive waves is a key too.")

    @model_validator(mode="after")
    def _consistent(self) -> Linkage:
        if self.learn_weights is not None and self.intruder != "distance":
            raise InputError("learned weights are weights of the distance intruder; the Fellegi–Sunter "
                             "intruder estimates its own", field="learn_weights")
        if self.wave is not None and (self.cluster is not None or self.learn_weights is not None):
            raise InputError("the panel intruder (wave) is not combined with clusters or learned weights", field="wave")
        if self.cluster is not None and self.learn_weights is not None:
            raise InputError("learned weights hold out a share of the units, which breaks clusters; use one of "
                             "them", field="cluster")
        if self.trajectory and self.wave is None:
            raise InputError("trajectories are growth between waves; give the wave column too", field="trajectory")
        names = [k.name for k in self.keys]
        if len(set(names)) != len(names):
            raise InputError("a key is declared twice", field="keys")
        if self.intruder == "distance" and any(k.weighs_by_frequency for k in self.keys):
            raise InputError("the term-frequency adjustment (key option tf) weighs Fellegi–Sunter agreement; "
                             "use it with the fellegi-sunter intruder", field="keys")
        if all(k.weight == 0 for k in self.keys):
            raise InputError("every key has weight 0: every distance would be 0 and the links arbitrary; "
                             "give at least one key a positive weight", field="keys")
        return self

    @property
    def blocks(self) -> tuple[Block, ...]:
        """Every blocking key, the alternatives of an entry one after the other."""
        return tuple(b for entry in self.block for b in (entry.any if isinstance(entry, AnyBlock) else (entry,)))

    @property
    def block_groups(self) -> tuple[int, ...]:
        """The blocking entry of each of ``blocks`` when some entry offers alternatives (``a|b``,
        ``attack.linkage.passes``); empty when every entry is a single key."""
        if not any(isinstance(entry, AnyBlock) for entry in self.block):
            return ()
        return tuple(i for i, entry in enumerate(self.block)
                     for _ in (entry.any if isinstance(entry, AnyBlock) else (entry,)))

    def overridden(self, override: IntruderLinkage) -> Linkage:
        """These settings with the entries an intruder sets replaced (validated again)."""
        fields = {name: getattr(self, name) for name in type(self).model_fields}
        fields.update({name: getattr(override, name) for name in override.model_fields_set
                       if getattr(override, name) is not None})
        return type(self)(**fields)

    def release_columns(self) -> list[str]:
        """The release columns the linkage reads (keys, then blocks)."""
        return list(dict.fromkeys([c for k in self.keys for c in k.columns] + [b.name for b in self.blocks]))

    def external_columns(self) -> list[str]:
        """The external columns the linkage reads (keys, then blocks)."""
        return list(dict.fromkeys([c for k in self.keys for c in k.external_columns]
                                  + [b.external_column for b in self.blocks]))

    def blocking_entries(self) -> list[str]:
        """The blocking entries as written: ``nace:prefix=2``, or alternatives ``a|b``."""
        return ["|".join(b.label() for b in entry.any) if isinstance(entry, AnyBlock) else entry.label()
                for entry in self.block]

    def make_blocking(self, external: pd.DataFrame, release: pd.DataFrame) -> Blocking:
        """The blocks of the two files: one pass, or the union of the passes of alternatives."""
        if not self.block_groups:
            return make_blocks(external, release, self.blocks)
        return make_pass_blocks(external, release, block_passes(self.blocks, self.block_groups))

    def to_dict(self) -> dict:
        """JSON-ready description for results and certificates."""
        out: dict[str, Any] = {
            "method": self.method,
            "standardise": self.standardise,
            "metric_distance": self.metric_distance,
            "keys": [k.to_dict() for k in self.keys],
            "blocking": self.blocking_entries(),
        }
        if self.winsorise:
            out["winsorise"] = True
        if self.intruder != "distance":
            out["intruder"] = self.intruder
        if self.learn_weights is not None:
            out["learn_weights"] = self.learn_weights
        if self.cluster is not None:
            out["cluster"] = self.cluster
        if self.wave is not None:
            out["wave"] = self.wave
            out["trajectory"] = self.trajectory
        if self.method == "sequential":
            out["order"] = "input" if self.seed is None else f"random (seed {self.seed})"
        return out


def _optional(model: type[SettingsTable]) -> dict[str, Any]:
    """The fields of ``model``, each optional (None: not set), with its rules and description."""
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        fields[name] = (Optional[annotation], Field(default=None, description=info.description))  # noqa: UP045
    return fields


if TYPE_CHECKING:  # the model is derived from Linkage below; type checkers see a settings table
    class IntruderLinkage(SettingsTable):
        """An intruder's linkage."""
else:
    #: An intruder's linkage: the fields of ``Linkage``, each optional; unset entries come from
    #: the scenario's ``[linkage]`` (``Linkage.overridden``).
    IntruderLinkage = create_model(
        "IntruderLinkage", __base__=SettingsTable, __doc__="An intruder's linkage: unset entries come from the "
        "scenario's ``[linkage]``.", __module__=__name__, **_optional(Linkage))


__all__ = ["BlockEntry", "BlockingEntry", "IntruderLinkage", "Linkage", "Number", "SettingsTable", "parse_cluster",
           "parses"]
