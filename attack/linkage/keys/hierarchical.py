"""Hierarchical keys such as NACE codes: distance from the deepest shared level (handbook eq. 13.3).

Codes have a level ℓ (1 = coarsest) and ancestors ``anc(c, k)``. With ``p(a, b)`` the deepest
level at which both codes have the same ancestor (0 when only the root is shared) and ``L`` the
number of levels::

    d_H(a, b) = 0              if p = min(ℓ(a), ℓ(b))   (equal, or one is an ancestor of the other)
    d_H(a, b) = (L - p) / L    otherwise                 (mode "compatible_zero", the default)

Mode ``"lca"`` uses ``(L - p) / L`` for compatible codes at different depth as well. Levels come
either from prefix lengths (``levels=(2, 3, 4)``: "15" → "151" → "1511"; by default the distinct
code lengths present) or from an explicit parent map (``{"1511": "151", "151": "15", "15": "D"}``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import Field

from attack.errors import InputError
from attack.io.readers import code_column
from attack.linkage.distances import CodeComponent, ComponentOptions, factorize_pair
from attack.linkage.keys.key import Key, whole_numbers


def _ancestors_by_prefix(code: str, levels: Sequence[int]) -> list[str]:
    return [code[:n] for n in levels if n <= len(code)]


def _ancestors_by_parents(code: str, parents: Mapping[str, str]) -> list[str]:
    chain = [code]
    while chain[-1] in parents:
        chain.append(parents[chain[-1]])
        if len(chain) > 64:
            raise InputError(f"hierarchy parent map has a cycle through {code!r}")
    return chain[::-1]


def hierarchy_distance_table(
    codes_a: Sequence[str],
    codes_b: Sequence[str],
    *,
    levels: Sequence[int] | None = None,
    parents: Mapping[str, str] | None = None,
    mode: str = "compatible_zero",
) -> np.ndarray:
    """Distances d_H between every code of ``codes_a`` and every code of ``codes_b``.

    docs/method/linkage.md (normative form of handbook eq. 13.3); see the module docstring.
    """
    everything = list(codes_a) + list(codes_b)
    if parents:
        paths = {c: _ancestors_by_parents(c, parents) for c in [*parents, *everything]}
    else:
        lengths = sorted(set(levels) if levels else {len(c) for c in everything})
        paths = {}
        for c in everything:
            path = _ancestors_by_prefix(c, lengths)
            if not path or path[-1] != c:
                raise InputError(
                    f"hierarchical code {c!r} has a length that is not one of the levels {lengths}"
                )
            paths[c] = path
    depth = max(len(p) for p in paths.values())  # L: levels of the whole hierarchy
    table = np.empty((len(codes_a), len(codes_b)))
    for i, ca in enumerate(codes_a):
        pa = paths[ca]
        for j, cb in enumerate(codes_b):
            pb = paths[cb]
            shallow = min(len(pa), len(pb))
            common = 0
            while common < shallow and pa[common] == pb[common]:
                common += 1
            compatible = common == shallow
            if compatible and (mode == "compatible_zero" or len(pa) == len(pb)):
                table[i, j] = 0.0
            else:
                table[i, j] = (depth - common) / depth
    return table


class Hierarchical(Key):
    """A hierarchical code such as NACE: distance from the deepest shared level (eq. 13.3)."""

    type: Literal["hierarchical"] = "hierarchical"
    levels: tuple[int, ...] | None = Field(default=None, description="Prefix lengths of the levels, e.g. [2, 3, 4].")
    parents: dict[str, str] | None = Field(default=None, description="An explicit map code → parent code.")
    hierarchy_mode: Literal["compatible_zero", "lca"] = "compatible_zero"

    flags = {"lca": ("hierarchy_mode", "lca")}
    valued_options = {"levels": ("levels", whole_numbers)}

    def component(self, external: pd.DataFrame, release: pd.DataFrame, options: ComponentOptions) -> CodeComponent:
        """The table of d_H between the distinct codes of both files."""
        a = code_column(external, self.external_column, required=True)
        b = code_column(release, self.name, required=True)
        ca, cb, uniques = factorize_pair(a, b)
        codes = [str(u) for u in uniques]
        table = hierarchy_distance_table(codes, codes, levels=self.levels, parents=self.parents,
                                         mode=self.hierarchy_mode)
        if table.size == 0:
            table = np.zeros((1, 1))
        return CodeComponent(ca, cb, kind="hierarchical", table=table)

    def _described(self) -> dict:
        return {"hierarchy_mode": self.hierarchy_mode,
                "hierarchy": "parent map" if self.parents else f"prefix levels {self.levels or 'auto'}"}

    def _options(self) -> list[str]:
        if self.parents is not None:
            raise InputError(f"key {self.name!r}: a parent map has no text spelling")
        levels = [f"levels={'|'.join(map(str, self.levels))}"] if self.levels else []
        return levels + (["lca"] if self.hierarchy_mode == "lca" else [])
