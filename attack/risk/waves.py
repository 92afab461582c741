"""The panel intruder: the attack after 1, 2, … waves (docs/method/structure.md).

For every number of waves w the intruder links the units of the first w waves
(``attack.linkage.panel.wave_view``: one key per key and wave, units blocked by the waves they
are present in, optionally growth rates), and the links are scored as every linkage attack is,
on the values of each unit's last wave (the evaluated variables default to the metric keys).
The result is the attack after all waves, the strongest, with the figures after each number of
waves beside it (``figures["panel"]``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from attack.io.readers import Table
from attack.linkage.keys.metric import Metric
from attack.linkage.panel import PanelSide, panel_waves, wave_column, wave_view
from attack.linkage.settings import Linkage
from attack.risk.results import AttackResult
from attack.risk.settings import Evaluation

#: Runs one unit-level attack: (external, release, original or None, linkage, evaluation) → result.
Run = Callable[[Table, Table, Table | None, Linkage, Evaluation], AttackResult]

_SUMMARY = ("n_verifiable", "n_correct", "reidentification_rate", "reidentification_rate_ci", "disclosure_risk",
            "passed", "n_failing_cells")


def panel_attack(external: Table, external_id: str, release: Table, release_id: str, original: Table | None,
                 original_id: str | None, linkage: Linkage, evaluation: Evaluation, run: Run) -> AttackResult:
    """The panel intruder on long files (module docstring); ``run`` links and scores one view."""
    ext_wave, rel_wave = wave_column(linkage)
    sides = [PanelSide(external, external_id, ext_wave), PanelSide(release, release_id, rel_wave)]
    orig = None if original is None else PanelSide(original, original_id or release_id, rel_wave)
    waves = panel_waves([*sides, *([orig] if orig is not None else [])])
    targets = list(evaluation.targets) if evaluation.targets is not None else \
        [k.name for k in linkage.keys if isinstance(k, Metric)]
    evaluation = evaluation.model_copy(update={"targets": tuple(targets)})
    carried = list(dict.fromkeys([*targets, *(c.name for c in evaluation.cells)]))
    by_wave, result = [], None
    for w in range(1, len(waves) + 1):
        view = wave_view(sides[0], sides[1], orig, linkage, waves[:w], carried)
        result = run(external.with_frame(view.external), release.with_frame(view.release),
                     None if original is None or view.original is None else original.with_frame(view.original),
                     view.linkage, evaluation)
        by_wave.append({"waves": w, "last_wave": waves[w - 1], "n_units_external": len(view.external),
                        "n_units_release": len(view.release), **_summary(result)})
    assert result is not None
    panel = {"wave_column": linkage.wave, "waves": list(waves), "trajectory": linkage.trajectory,
             "evidence": "every key of every wave; units blocked by the waves they are present in"
                         + ("; growth of the metric keys between consecutive waves" if linkage.trajectory else ""),
             "by_wave": by_wave,
             "gain": (by_wave[-1]["reidentification_rate"] / by_wave[0]["reidentification_rate"]
                      if by_wave[0]["reidentification_rate"] else None)}
    return replace(result, scored=replace(result.scored, panel=panel))


def _summary(result: AttackResult) -> dict[str, Any]:
    """The figures of the attack after some waves that the panel block shows."""
    figures = result.figures
    return {k: figures[k] for k in _SUMMARY}
