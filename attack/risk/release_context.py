"""The release context: a questionnaire whose answers set the risk limit τ and the attacker
model by a documented rule (docs/method/release-context.md).

After ISO/IEC 27559:2022 (the context of a release: recipients, controls, the data, the threat)
and the risk-assessment framework that ARX's attacker models and the Canadian and EMA guidance
follow (El Emam 2013): the acceptable risk of re-identification *given an attempt* is the
acceptable overall risk, set by the data's sensitivity, divided by the probability of an
attempt, set by the recipients, their controls and the intruder's motive and capacity. A
public-use file is assumed to be attacked (probability 1) and judged on the prosecutor's
(highest) risk; a file under contract on the journalist's (average) risk; a file analysed in a
secure enclave on the marketer's (expected share re-identified).

The numbers are this project's, documented with the rule; they are not taken from a standard
(none gives numbers). Every answer changes τ deterministically; ``rule`` states the arithmetic.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from attack.errors import InputError, from_validation
from attack.linkage.settings import SettingsTable

Level = Literal["low", "medium", "high"]
Recipient = Literal["public-use", "scientific-use", "enclave"]
Controls = Literal["none", "contract", "contract-and-audit"]

#: Acceptable overall risk by the data's sensitivity (k = 5, 10, 20 for one record in a class).
OVERALL_RISK: dict[str, float] = {"low": 0.2, "medium": 0.1, "high": 0.05}
#: Probability of an attempt by the recipients' controls (rows) and the intruder's threat, the
#: larger of motive and capacity (columns); a public-use file is always attacked.
ATTEMPT: dict[str, dict[str, float]] = {
    "none": {"low": 0.4, "medium": 0.6, "high": 1.0},
    "contract": {"low": 0.2, "medium": 0.3, "high": 0.4},
    "contract-and-audit": {"low": 0.05, "medium": 0.1, "high": 0.2},
}
#: The enclave's checked outputs halve the probability that a re-identification leaves it.
ENCLAVE_FACTOR = 0.5
#: τ never exceeds the handbook's limit for a hit rate (defaults.LINKAGE_TAU).
TAU_CAP = 0.5
ATTACKER: dict[str, str] = {"public-use": "prosecutor", "scientific-use": "journalist", "enclave": "marketer"}
_ORDER = {"low": 0, "medium": 1, "high": 2}


class ReleaseContext(SettingsTable):
    """The answers of the release-context questionnaire (``[context]`` in a scenario file)."""

    recipient: Recipient = Field(description="Who receives the file: anyone (public-use), registered researchers "
                                             "(scientific-use) or analysts in a secure enclave.")
    controls: Controls = Field(description="Controls on the recipients: none, a contract forbidding "
                                           "re-identification, or a contract with audits.")
    sensitivity: Level = Field(description="How much harm a disclosure of these data does.")
    motive: Level = Field(description="The intruder's motive to re-identify.")
    capacity: Level = Field(description="The intruder's capacity: skills, external files, resources.")

    @property
    def threat(self) -> str:
        return max(self.motive, self.capacity, key=_ORDER.__getitem__)

    @property
    def attempt_probability(self) -> float:
        if self.recipient == "public-use":
            return 1.0
        p = ATTEMPT[self.controls][self.threat]
        return p * ENCLAVE_FACTOR if self.recipient == "enclave" else p

    @property
    def tau(self) -> float:
        """τ = min(0.5, overall risk / probability of an attempt)."""
        return round(min(TAU_CAP, OVERALL_RISK[self.sensitivity] / self.attempt_probability), 6)

    @property
    def attacker_model(self) -> str:
        return ATTACKER[self.recipient]

    def rule(self) -> str:
        return (f"tau = min({TAU_CAP:g}, {OVERALL_RISK[self.sensitivity]:g} (sensitivity {self.sensitivity}) / "
                f"{self.attempt_probability:g} (probability of an attempt: {self.recipient}, controls "
                f"{self.controls}, threat {self.threat})) = {self.tau:g}")

    def record(self) -> dict[str, Any]:
        """The answers, τ and the attacker model, as certificates and reports record them."""
        return {"answers": self.model_dump(mode="json"), "tau": self.tau, "attacker_model": self.attacker_model,
                "attempt_probability": self.attempt_probability, "rule": self.rule()}


#: The three labels ``attack report --board --context`` has always taken, as full answers.
PRESETS: dict[str, dict[str, str]] = {
    "public-use": {"recipient": "public-use", "controls": "none", "sensitivity": "medium", "motive": "high",
                   "capacity": "high"},
    "scientific-use": {"recipient": "scientific-use", "controls": "contract", "sensitivity": "medium",
                       "motive": "medium", "capacity": "medium"},
    "enclave": {"recipient": "enclave", "controls": "contract-and-audit", "sensitivity": "medium",
                "motive": "low", "capacity": "medium"},
}


def release_context(answers: Mapping[str, Any], file: str | None = None) -> ReleaseContext:
    """The validated questionnaire; an ``InputError`` naming the field otherwise."""
    try:
        return ReleaseContext.model_validate(dict(answers))
    except ValidationError as exc:
        raise from_validation(exc, model=ReleaseContext, file=file) from None


def resolve_context(value: str | Path) -> ReleaseContext:
    """A preset name (public-use, scientific-use, enclave) or a TOML file with a ``[context]``
    table (or the answers at its top level)."""
    if str(value) in PRESETS:
        return release_context(PRESETS[str(value)])
    path = Path(value)
    if not path.is_file():
        raise InputError(f"--context takes {', '.join(PRESETS)} or a TOML file with a [context] table; "
                         f"{path.name!r} is neither")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not a TOML file: {exc}", file=path.name) from None
    return release_context(raw.get("context", raw), file=path.name)
