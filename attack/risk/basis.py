"""What a mass attack's verdict rests on, and the reasons it cannot be PASSED beyond its cells
(docs/method/risk.md, "What the verdict rests on").

Besides every cell being below τ (and, when identity is judged, below the re-identification
limit), a run is PASSED only when

* it rests on enough: at least ``min_scored`` scored (verifiable) units and as many links
  (confident links, when τ judges the confident links) — nothing is judged on nothing;
* no direct identifier is released, unless the data holder declared it harmless;
* something is judged: with identity declared to disclose nothing, at least one target is
  scored.

``reasons`` recomputes these from the block's own fields, so that ``attack verify`` re-checks
them from a certificate alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attack.risk.roles import ColumnRoles
from attack.risk.settings import Evaluation
from attack.risk.targets import TargetComparison


def judged_on(summary: Mapping[str, Any], roles: ColumnRoles, comparisons: Sequence[TargetComparison],
              spec: Evaluation) -> dict[str, Any]:
    """The ``judged_on`` block of an attack's JSON: the scored targets with their types, the
    identity rule, the counts the verdict rests on, the released direct identifiers, and the
    reasons (if any) the run cannot be PASSED whatever its cells say."""
    limit = spec.reidentification_limit
    confident = spec.risk_on == "confident"
    block: dict[str, Any] = {
        "targets": {c.target.name: c.to_dict() for c in comparisons},
        "identity": {
            "rule": spec.identity,
            "limit": limit,
            "on": (f"confident links (match probability >= {spec.min_probabilities[0]:g})" if confident
                   else "all links"),
        },
        "min_scored": spec.min_scored,
        "n_scored_units": int(summary["n_verifiable"]),
        "n_scored_links": int(summary["n_matched"]),
        "links_are": "confident links" if confident else "links",
        "direct_identifiers": list(roles.blocking_identifiers),
        "harmless": [c for c in roles.direct_identifiers if c in roles.harmless],
    }
    block["reasons"] = reasons(block)
    return block


def reasons(block: Mapping[str, Any]) -> list[str]:
    """Why the run cannot be PASSED beyond its cells, from the ``judged_on`` block's fields."""
    out = []
    least = int(block["min_scored"])
    if block["n_scored_units"] < least:
        out.append(f"the verdict would rest on {block['n_scored_units']} scored unit(s), fewer than the "
                   f"minimum of {least}")
    if block["n_scored_links"] < least:
        out.append(f"the verdict would rest on {block['n_scored_links']} {block['links_are']}, fewer than the "
                   f"minimum of {least}")
    if block["direct_identifiers"]:
        out.append("direct identifier(s) released: " + ", ".join(block["direct_identifiers"])
                   + " (drop them, or declare them harmless)")
    if not block["targets"] and block["identity"]["limit"] is None:
        out.append("nothing is judged: no target is scored and identity is declared to disclose nothing")
    return out


__all__ = ["judged_on", "reasons"]
