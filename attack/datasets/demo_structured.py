"""The demo data sets with structure (docs/method/structure.md): households, a panel of the
demo population and its establishments, each with a perturbed release.

* ``households`` (``n_units // 2`` households, id ``person_id``, cluster ``household_id``) and
  ``households:perturbed``: age ± a whole number of years up to 3, income × exp(N(0, 0.3));
* ``panel`` (the demo population over 5 waves, column ``wave``), ``panel:noise`` (independent
  10 % noise in every wave, ``panel-noise`` with ``per_wave``) and ``panel:consistent`` (one
  factor per unit for all waves);
* ``establishments`` (id ``establishment_id``, cluster ``enterprise_id``) and
  ``establishments:noise`` (employees and turnover × (1 + 0.1·Z), one factor per establishment).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from attack.datasets.structured import make_establishments, make_households, make_panel
from attack.protect.consistent import panel_noise

STRUCTURED_SOURCES = ("households", "households:perturbed", "panel", "panel:noise", "panel:consistent",
                      "establishments", "establishments:noise")

#: Waves of the demo panel.
PANEL_WAVES = 5


@lru_cache(maxsize=2)
def _panel(n_units: int, seed: int) -> pd.DataFrame:
    return make_panel(n_units, PANEL_WAVES, seed)


def structured_source(name: str, population: pd.DataFrame, n_units: int, seed: int) -> tuple[pd.DataFrame, str]:
    """The structured demo data set ``name`` (one of ``STRUCTURED_SOURCES``) and its id column."""
    family, _, variant = name.partition(":")
    if family == "households":
        frame = make_households(max(1, n_units // 2), seed)
        if variant == "perturbed":
            rng = np.random.default_rng(np.random.SeedSequence(seed + 500))
            frame["age"] = frame["age"] + rng.integers(-3, 4, len(frame))
            frame["income"] = frame["income"] * np.exp(rng.normal(0.0, 0.3, len(frame)))
        return frame, "person_id"
    if family == "panel":
        frame = _panel(n_units, seed).copy()
        if variant:
            frame = panel_noise(frame, ["turnover", "employees"], unit="unit_id", s=0.1,
                                per_wave=variant == "noise", seed=seed + 600)
        return frame, "unit_id"
    frame = make_establishments(population, seed)
    if variant == "noise":
        frame = panel_noise(frame, ["turnover", "employees"], unit="establishment_id", s=0.1, seed=seed + 700)
    return frame, "establishment_id"
