"""Seeded synthetic enterprise data for demonstrations and tests (docs/method/validation.md).

``make_population`` builds a cost-structure-survey-like population of manufacturing and mining
firms; ``make_external`` derives an intruder's database from a sample of it with the source
disagreements the handbook measured (docs/method/validation.md, docs/method/intruders.md); ``worst_case_external``
hands the intruder the original key values (docs/method/intruders.md).

All random draws come from generators spawned from one ``numpy.random.SeedSequence`` per call, so a
given seed always yields the same frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import ndtr, ndtri

from attack.errors import InputError
from attack.risk.natural_protection import agreement_profile

__all__ = [
    "EXTERNAL_PROFILES",
    "LEGAL_FORMS",
    "NACE_CLASSES",
    "POPULATION_COLUMNS",
    "SIZE_LABELS",
    "ExternalProfile",
    "incompatibility_profile",
    "make_external",
    "make_population",
    "size_class",
    "worst_case_external",
]

# --- size classes and regional structure (docs/method/validation.md) ----------------------------------------

SIZE_LABELS: tuple[str, ...] = ("20-49", "50-99", "100-249", "250-499", "500-999", ">=1000")
_SIZE_LOWER = np.array([20, 50, 100, 250, 500, 1000])
_SIZE_UPPER = np.array([50, 100, 250, 500, 1000, 400_000])
_SIZE_COUNTS = np.array([5294, 4119, 3906, 1758, 1085, 756])  # Table 35.2
_BBR9_COUNTS = np.array([2920, 2994, 1379, 486, 788, 4199, 1987, 1488, 677])  # Table 35.1
# Probability that a firm in BBR9 type 1..9 lies in the East (new Länder incl. Berlin); the rural
# types are more often East. Gives about 15% East overall.
_EAST_BY_BBR9 = np.array([0.12, 0.05, 0.08, 0.20, 0.15, 0.12, 0.25, 0.25, 0.45])

LEGAL_FORMS: tuple[str, ...] = (
    "GmbH", "AG", "GmbH & Co. KG", "KG", "OHG", "eG", "Einzelunternehmen",
)
# Legal-form shares by size class (rows as SIZE_LABELS): corporations grow with size.
_LEGAL_BY_SIZE = np.array([
    [0.520, 0.01, 0.20, 0.070, 0.040, 0.020, 0.140],
    [0.550, 0.02, 0.25, 0.060, 0.030, 0.015, 0.075],
    [0.550, 0.04, 0.28, 0.050, 0.020, 0.010, 0.050],
    [0.520, 0.09, 0.29, 0.040, 0.015, 0.010, 0.035],
    [0.500, 0.16, 0.28, 0.030, 0.010, 0.005, 0.015],
    [0.435, 0.30, 0.22, 0.025, 0.010, 0.005, 0.005],
])

# Per size class: chance of a structural zero (goods for resale, investment) and base chance of
# positive R&D expenditure (scaled by the division's R&D propensity).
_P_ZERO_RESALE = np.array([0.46, 0.42, 0.38, 0.33, 0.28, 0.22])
_P_ZERO_INVEST = np.array([0.22, 0.16, 0.12, 0.08, 0.05, 0.02])
_P_RD_BASE = np.array([0.19, 0.28, 0.40, 0.53, 0.66, 0.80])

_EAST_PRODUCTIVITY = 0.80
_EAST_WAGE = 0.72


class _Division(NamedTuple):
    """One WZ93 division: size, economics and its 4-digit classes (groups = first 3 digits)."""

    code: str
    firms: int            # approximate firm count out of 16,918
    tilt: float           # log-odds shift per size class (positive: large firms more common)
    productivity: float   # turnover per employee, thousand euro
    wage: float           # personnel costs per employee, thousand euro
    material: float       # material costs / turnover
    energy: float         # energy costs / turnover
    rd_propensity: float  # factor on the chance of positive R&D
    rd_intensity: float   # R&D / turnover where positive
    classes: str


# WZ93 (NACE Rev. 1) divisions 10-14 (mining) and 15-37 (manufacturing); sparse 10/14/30/37 as in
# Table 35.1, merges of Table 35.23 for orientation.
_DIVISIONS: tuple[_Division, ...] = (
    _Division("10", 39, 0.30, 90, 50, 0.30, 0.060, 0.6, 0.010, "1010 1020 1030"),
    _Division("11", 25, 0.30, 1200, 60, 0.35, 0.040, 0.8, 0.010, "1110 1120"),
    _Division("12", 4, 0.00, 120, 45, 0.30, 0.040, 0.5, 0.005, "1200"),
    _Division("13", 8, 0.00, 130, 45, 0.35, 0.050, 0.5, 0.005, "1310 1320"),
    _Division("14", 157, -0.20, 160, 40, 0.30, 0.080, 0.4, 0.004,
              "1411 1412 1413 1421 1422 1430 1440 1450"),
    _Division("15", 1600, -0.05, 230, 33, 0.60, 0.020, 0.6, 0.005,
              "1511 1512 1513 1520 1531 1532 1533 1541 1542 1543 1551 1552 1561 1562 1571 1572 "
              "1581 1582 1583 1584 1589 1591 1593 1596 1598"),
    _Division("16", 30, 0.40, 900, 55, 0.35, 0.005, 1.0, 0.010, "1600"),
    _Division("17", 620, -0.05, 130, 35, 0.48, 0.030, 0.8, 0.010,
              "1711 1712 1716 1721 1722 1725 1730 1740 1751 1752 1753 1754 1760 1771 1772"),
    _Division("18", 330, -0.10, 150, 30, 0.50, 0.008, 0.5, 0.008, "1810 1821 1822 1823 1824 1830"),
    _Division("19", 110, -0.10, 150, 30, 0.50, 0.012, 0.5, 0.008, "1910 1920 1930"),
    _Division("20", 520, -0.20, 150, 35, 0.55, 0.030, 0.4, 0.005, "2010 2020 2030 2040 2051 2052"),
    _Division("21", 400, 0.15, 230, 46, 0.50, 0.060, 0.7, 0.008,
              "2111 2112 2121 2122 2123 2124 2125"),
    _Division("22", 900, -0.05, 120, 45, 0.35, 0.012, 0.3, 0.004,
              "2211 2212 2213 2215 2221 2222 2223 2224 2225 2231"),
    _Division("23", 70, 0.35, 1800, 65, 0.70, 0.030, 0.8, 0.003, "2310 2320 2330"),
    _Division("24", 900, 0.25, 280, 60, 0.45, 0.040, 1.5, 0.050,
              "2411 2413 2414 2415 2416 2420 2430 2441 2442 2451 2452 2462 2464 2466 2470"),
    _Division("25", 880, 0.00, 140, 41, 0.48, 0.025, 1.0, 0.015,
              "2511 2512 2513 2521 2522 2523 2524"),
    _Division("26", 950, -0.05, 150, 42, 0.38, 0.070, 0.7, 0.010,
              "2611 2613 2615 2621 2622 2624 2626 2630 2640 2651 2652 2661 2663 2664 2670 2681 "
              "2682"),
    _Division("27", 560, 0.20, 230, 48, 0.58, 0.060, 0.8, 0.010,
              "2710 2722 2731 2733 2734 2742 2744 2745 2751 2752 2753 2754"),
    _Division("28", 2000, -0.15, 110, 40, 0.38, 0.020, 0.8, 0.010,
              "2811 2812 2821 2822 2830 2840 2851 2852 2861 2862 2863 2871 2872 2873 2874 2875"),
    _Division("29", 2550, 0.05, 140, 48, 0.45, 0.010, 1.3, 0.030,
              "2911 2912 2913 2914 2921 2922 2923 2924 2931 2932 2941 2942 2943 2951 2952 2953 "
              "2954 2955 2956 2960 2971 2972"),
    _Division("30", 153, 0.10, 350, 55, 0.60, 0.005, 1.6, 0.060, "3001 3002"),
    _Division("31", 920, 0.10, 150, 47, 0.48, 0.010, 1.3, 0.035,
              "3110 3120 3130 3140 3150 3161 3162"),
    _Division("32", 330, 0.15, 230, 50, 0.55, 0.008, 1.6, 0.070, "3210 3220 3230"),
    _Division("33", 700, -0.05, 120, 45, 0.38, 0.008, 1.6, 0.060, "3310 3320 3330 3340 3350"),
    _Division("34", 620, 0.35, 280, 58, 0.62, 0.010, 1.3, 0.040, "3410 3420 3430"),
    _Division("35", 200, 0.25, 170, 52, 0.55, 0.012, 1.3, 0.050,
              "3511 3512 3520 3530 3541 3542 3543 3550"),
    _Division("36", 820, -0.15, 130, 35, 0.48, 0.015, 0.6, 0.008,
              "3611 3612 3613 3614 3615 3622 3630 3640 3650 3662 3663"),
    _Division("37", 94, -0.20, 260, 35, 0.60, 0.030, 0.3, 0.004, "3710 3720"),
)


def _division_column(field: str) -> np.ndarray:
    return np.array([getattr(d, field) for d in _DIVISIONS], dtype=float)


_DIV_CODES = np.array([d.code for d in _DIVISIONS])
_CLASS_CODES = np.array([c for d in _DIVISIONS for c in d.classes.split()])
_CLASS_DIV = np.repeat(np.arange(len(_DIVISIONS)), [len(d.classes.split()) for d in _DIVISIONS])
NACE_CLASSES: tuple[str, ...] = tuple(_CLASS_CODES)

# --- population variables ----------------------------------------------------------------------

POPULATION_COLUMNS: tuple[str, ...] = (
    "unit_id", "nace", "bbr9", "east_west", "legal_form", "employees", "turnover",
    "personnel_costs", "material_costs", "energy_costs", "goods_for_resale", "rd_expenditure",
    "investment", "depreciation",
)
_KEY_COLUMNS = ("unit_id", "nace", "bbr9", "east_west", "legal_form")


@dataclass(frozen=True)
class _Segmented:
    """Categories laid out in consecutive segments, weights normalised to 1 within each segment.

    A draw for a unit picks a category of that unit's segment; optionally the unit's current
    category is excluded (renormalising over the rest), which models a coding change.
    """

    start: np.ndarray   # segment index + cumulative weight before the category
    end: np.ndarray
    first: np.ndarray   # first / last category index of each segment
    last: np.ndarray

    @classmethod
    def build(cls, segment: np.ndarray, weight: np.ndarray) -> _Segmented:
        """``segment`` must be sorted and cover 0..S-1; ``weight`` is non-negative."""
        share = weight / np.bincount(segment, weights=weight)[segment]
        end = np.cumsum(share)  # each segment sums to 1, so segment s spans [s, s + 1)
        segments = np.arange(segment.max() + 1)
        return cls(
            start=end - share,
            end=end,
            first=np.searchsorted(segment, segments, side="left"),
            last=np.searchsorted(segment, segments, side="right") - 1,
        )

    @classmethod
    def from_matrix(cls, matrix: np.ndarray) -> _Segmented:
        """One segment per row; category index ``row * ncol + col``."""
        rows, cols = matrix.shape
        return cls.build(np.repeat(np.arange(rows), cols), matrix.ravel())

    def draw(
        self, u: np.ndarray, segment: np.ndarray, exclude: np.ndarray | None = None
    ) -> np.ndarray:
        """Category index per unit for uniforms ``u`` in [0, 1)."""
        if exclude is None:
            position = u
        else:
            width = self.end[exclude] - self.start[exclude]
            position = u * (1.0 - width)
            position = position + width * (position >= self.start[exclude] - segment)
        index = np.searchsorted(self.end, segment + position, side="right")
        return np.clip(index, self.first[segment], self.last[segment])


def _quota(counts: np.ndarray, n: int) -> np.ndarray:
    """Largest-remainder allocation of ``n`` units in proportion to ``counts``."""
    exact = counts / counts.sum() * n
    alloc = np.floor(exact).astype(int)
    alloc[np.argsort(alloc - exact, kind="stable")[: n - alloc.sum()]] += 1
    return alloc


def _ids(prefix: str, numbers: np.ndarray) -> np.ndarray:
    return np.char.add(prefix, np.char.zfill(numbers.astype(str), 7))


def _size_index(employees: ArrayLike) -> np.ndarray:
    """Size class 0..5 of SIZE_LABELS, -1 below 20 employees (intervals closed on the left)."""
    values = np.asarray(employees, dtype=float)
    if np.isnan(values).any():
        raise InputError("employee counts must not be missing", column="employees")
    return np.searchsorted(_SIZE_LOWER, values, side="right") - 1


def size_class(employees: ArrayLike) -> np.ndarray:
    """Employee size-class labels of Table 35.2 (docs/method/validation.md); "1-19" below 20."""
    labels = np.array(("1-19",) + SIZE_LABELS)
    return labels[_size_index(employees) + 1]


def _draw_employees(rng: np.random.Generator, size: np.ndarray) -> np.ndarray:
    """Log-normal shape inside the bounded classes, truncated Pareto tail (alpha 1.2) at >= 1000."""
    u = rng.random(size.size)
    lower, upper = _SIZE_LOWER[size], _SIZE_UPPER[size]
    mu, sigma = np.log(40.0), 1.1
    a = ndtr((np.log(lower) - mu) / sigma)
    b = ndtr((np.log(upper) - mu) / sigma)
    lognormal = np.exp(mu + sigma * ndtri(a + u * (b - a)))
    alpha = 1.2
    pareto = lower * (1.0 - u * (1.0 - (lower / upper) ** alpha)) ** (-1.0 / alpha)
    value = np.where(size == len(SIZE_LABELS) - 1, pareto, lognormal)
    return np.clip(np.floor(value), lower, upper - 1).astype(np.int64)


def _money(values: np.ndarray, positive: np.ndarray | bool = True) -> np.ndarray:
    """Round to 0.1 thousand euro; positive entries stay at least 0.1."""
    rounded = np.round(values, 1)
    return np.where(positive, np.maximum(rounded, 0.1), 0.0)


def make_population(n_units: int = 17000, seed: int = 1) -> pd.DataFrame:
    """KSE-like population of firms with >= 20 employees (docs/method/validation.md, Tables 35.1-35.2).

    Size classes and BBR9 types follow the published shares by quota; industry depends on size via
    a per-division tilt; turnover and the cost block are log-normal around firm size.
    """
    if n_units < 1:
        raise InputError(f"n_units must be a positive integer, got {n_units}")
    (g_size, g_region, g_weights, g_industry, g_legal, g_employees, g_turnover,
     g_costs) = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(8))

    size = g_size.permutation(np.repeat(np.arange(len(SIZE_LABELS)), _quota(_SIZE_COUNTS, n_units)))
    bbr9 = g_region.permutation(np.repeat(np.arange(9), _quota(_BBR9_COUNTS, n_units)))
    east = g_region.random(n_units) < _EAST_BY_BBR9[bbr9]

    firms, tilt = _division_column("firms"), _division_column("tilt")
    centre = np.average(np.arange(len(SIZE_LABELS)), weights=_SIZE_COUNTS)
    div_given_size = firms * np.exp(np.outer(np.arange(len(SIZE_LABELS)) - centre, tilt))
    division = _Segmented.from_matrix(div_given_size).draw(g_industry.random(n_units), size)
    division %= len(_DIVISIONS)
    class_table = _Segmented.build(_CLASS_DIV, g_weights.gamma(2.0, size=_CLASS_CODES.size))
    nace_class = class_table.draw(g_industry.random(n_units), division)

    legal = _Segmented.from_matrix(_LEGAL_BY_SIZE).draw(g_legal.random(n_units), size)
    legal %= len(LEGAL_FORMS)

    def by_division(field: str) -> np.ndarray:
        return _division_column(field)[division]

    employees = _draw_employees(g_employees, size)
    log_emp = np.log(employees)
    productivity = by_division("productivity") * np.where(east, _EAST_PRODUCTIVITY, 1.0)
    firm_effect = g_turnover.normal(0.0, 0.28, n_units)
    scale_effect = 0.04 * (log_emp - np.log(100.0))
    turnover = np.exp(log_emp + np.log(productivity) + scale_effect + firm_effect)

    noise = g_costs.normal(size=(7, n_units))
    uniform = g_costs.random(size=(3, n_units))
    wage = by_division("wage") * np.where(east, _EAST_WAGE, 1.0)
    personnel = employees * wage * np.exp(0.3 * firm_effect + 0.12 * noise[0])
    material = turnover * np.minimum(by_division("material") * np.exp(0.2 * noise[1]), 0.95)
    energy = turnover * by_division("energy") * np.exp(0.6 * noise[2])
    resale_pos = uniform[0] >= _P_ZERO_RESALE[size]
    resale = turnover * np.minimum(0.06 * np.exp(noise[3]), 0.8)
    rd_pos = uniform[1] < np.minimum(_P_RD_BASE[size] * by_division("rd_propensity"), 0.97)
    rd = turnover * by_division("rd_intensity") * np.exp(0.8 * noise[4])
    invest_pos = uniform[2] >= _P_ZERO_INVEST[size]
    investment = turnover * 0.04 * np.exp(0.8 * noise[5])
    depreciation = turnover * 0.035 * np.exp(0.45 * noise[6])

    return pd.DataFrame({
        "unit_id": _ids("U", np.arange(1, n_units + 1)),
        "nace": _CLASS_CODES[nace_class],
        "bbr9": (bbr9 + 1).astype(str),
        "east_west": np.where(east, "E", "W"),
        "legal_form": np.array(LEGAL_FORMS)[legal],
        "employees": employees,
        "turnover": _money(turnover),
        "personnel_costs": _money(personnel),
        "material_costs": _money(material),
        "energy_costs": _money(energy),
        "goods_for_resale": _money(resale, resale_pos),
        "rd_expenditure": _money(rd, rd_pos),
        "investment": _money(investment, invest_pos),
        "depreciation": _money(depreciation),
    })


# --- intruder databases (docs/method/validation.md) --------------------------------------------------


@dataclass(frozen=True)
class ExternalProfile:
    """How an intruder's source disagrees with the survey (docs/method/validation.md).

    Relative errors ``|e - o| / |o|`` are drawn from a piecewise-linear quantile function through
    the knots ``(error_share, error_bound)``: a share ``p`` of records has an error below the bound.
    """

    sample_rate: tuple[float, ...]         # inclusion probability per size class
    division_change: float                 # share recoded to a class of another division
    nearby_share: float                    # of those, share moved to a division within +-2
    class_change: float                    # share recoded to another class of the same division
    bbr9_change: float
    legal_form_change: float
    turnover_error: tuple[tuple[float, ...], tuple[float, ...]]
    employees_error: tuple[tuple[float, ...], tuple[float, ...]] | None


EXTERNAL_PROFILES: Mapping[str, ExternalProfile] = MappingProxyType({
    # Commercial database: sample profile Table 35.4 / Table 35.2; about 24% other division,
    # < 2% other BBR9, about half of the turnovers > 10% off; employee errors shaped like
    # Table 37.2.
    "markus": ExternalProfile(
        sample_rate=(0.5085, 0.5654, 0.5888, 0.5870, 0.5447, 0.5952),
        division_change=0.24,
        nearby_share=0.8,
        class_change=0.10,
        bbr9_change=0.02,
        legal_form_change=0.03,
        turnover_error=((0.0, 0.25, 0.50, 0.70, 0.85, 1.0), (0.0, 0.02, 0.10, 0.25, 0.50, 1.5)),
        employees_error=((0.0, 0.26, 0.46, 0.78, 1.0), (0.0, 0.10, 0.25, 0.50, 1.5)),
    ),
    # Turnover-tax statistics: sample profile Table 35.3 / Table 35.2; about 25% other division,
    # 1% other BBR9; turnover errors of Table 36.4 (4-digit agreement 56.1% at 2-digit 75.5%).
    "ust": ExternalProfile(
        sample_rate=(0.5893, 0.5708, 0.5394, 0.4824, 0.4728, 0.4550),
        division_change=0.25,
        nearby_share=0.8,
        class_change=0.19,
        bbr9_change=0.01,
        legal_form_change=0.03,
        turnover_error=((0.0, 0.382, 0.705, 0.812, 0.904, 0.938, 1.0),
                        (0.0, 0.01, 0.05, 0.10, 0.25, 0.50, 2.0)),
        employees_error=None,
    ),
})


def _division_transitions(nearby_share: float) -> _Segmented:
    """Row i: probabilities of recoding division i to each other division, by division size."""
    codes = _DIV_CODES.astype(int)
    other = codes[:, None] != codes[None, :]
    near = other & (np.abs(codes[:, None] - codes[None, :]) <= 2)
    firms = _division_column("firms")[None, :]

    def rows(mask: np.ndarray) -> np.ndarray:
        weight = mask * firms
        return weight / weight.sum(axis=1, keepdims=True)

    return _Segmented.from_matrix(nearby_share * rows(near) + (1.0 - nearby_share) * rows(other))


def _relative_error(rng: np.random.Generator, knots: tuple[tuple[float, ...], tuple[float, ...]],
                    n: int) -> np.ndarray:
    """Signed relative errors with |e| from the knot quantiles; never below -0.8."""
    size = np.interp(rng.random(n), knots[0], knots[1])
    negative = (rng.random(n) < 0.5) & (size <= 0.8)
    return np.where(negative, -size, size)


def _require(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{what} lacks the column(s) {', '.join(missing)}", column=missing[0])


def _code_index(values: pd.Series, codes: np.ndarray, column: str) -> np.ndarray:
    """Position of each value in ``codes``; unknown codes are an input error."""
    index = pd.Index(codes).get_indexer(values.astype(str))
    if (index < 0).any():
        raise InputError(f"value {values.to_numpy()[index < 0][0]!r} is not a known code",
                         column=column, row=int(np.flatnonzero(index < 0)[0]) + 1)
    return index


def make_external(
    population: pd.DataFrame, profile: str = "markus", seed: int = 2
) -> pd.DataFrame:
    """An intruder's database derived from a sample of ``population`` (docs/method/validation.md).

    Columns ext_id, unit_id (ground truth), nace, bbr9, east_west, legal_form, turnover and, for
    profiles with an employee error model, employees. East/West is a firm property and is kept when
    BBR9 is recoded.
    """
    if profile not in EXTERNAL_PROFILES:
        raise InputError(f"unknown external profile {profile!r}; expected one of "
                         f"{', '.join(EXTERNAL_PROFILES)}")
    spec = EXTERNAL_PROFILES[profile]
    _require(population, _KEY_COLUMNS + ("employees", "turnover"), "population")
    class_index = _code_index(population["nace"], _CLASS_CODES, "nace")
    bbr9 = _code_index(population["bbr9"], np.arange(1, 10).astype(str), "bbr9")
    legal = _code_index(population["legal_form"], np.array(LEGAL_FORMS), "legal_form")

    # Recoded firms land in a class with probability proportional to its population size (+1).
    class_sizes = np.bincount(class_index, minlength=_CLASS_CODES.size) + 1.0
    classes = _Segmented.build(_CLASS_DIV, class_sizes)
    branch = list(EXTERNAL_PROFILES).index(profile)
    profile_seed = np.random.SeedSequence(seed).spawn(len(EXTERNAL_PROFILES))[branch]
    (g_sample, g_nace, g_region, g_legal, g_turnover, g_employees,
     g_order) = (np.random.default_rng(s) for s in profile_seed.spawn(7))

    size = np.maximum(_size_index(population["employees"]), 0)
    keep = np.flatnonzero(g_sample.random(len(population)) < np.array(spec.sample_rate)[size])
    size, class_index, bbr9, legal = size[keep], class_index[keep], bbr9[keep], legal[keep]
    n = keep.size
    source = population.iloc[keep]

    division = _CLASS_DIV[class_index]
    u = g_nace.random((3, n))
    moved = u[0] < spec.division_change
    recoded = ~moved & (u[0] < spec.division_change + spec.class_change)
    new_division = _division_transitions(spec.nearby_share).draw(u[1], division) % len(_DIVISIONS)
    class_index = np.where(moved, classes.draw(u[2], new_division), class_index)
    class_index = np.where(recoded, classes.draw(u[2], division, exclude=class_index), class_index)

    u = g_region.random((2, n))
    bbr9_table = _Segmented.build(np.zeros(9, dtype=int), _BBR9_COUNTS.astype(float))
    other_bbr9 = bbr9_table.draw(u[1], np.zeros(n, dtype=int), exclude=bbr9)
    bbr9 = np.where(u[0] < spec.bbr9_change, other_bbr9, bbr9)

    u = g_legal.random((2, n))
    legal_table = _Segmented.from_matrix(_LEGAL_BY_SIZE)
    switched = legal_table.draw(u[1], size, exclude=size * len(LEGAL_FORMS) + legal)
    switched %= len(LEGAL_FORMS)
    legal = np.where(u[0] < spec.legal_form_change, switched, legal)

    turnover = source["turnover"].to_numpy(dtype=float)
    turnover = _money(turnover * (1.0 + _relative_error(g_turnover, spec.turnover_error, n)))
    columns = {
        "ext_id": _ids("E", g_order.permutation(n) + 1),
        "unit_id": source["unit_id"].to_numpy(),
        "nace": _CLASS_CODES[class_index],
        "bbr9": (bbr9 + 1).astype(str),
        "east_west": source["east_west"].to_numpy(),
        "legal_form": np.array(LEGAL_FORMS)[legal],
        "turnover": turnover,
    }
    if spec.employees_error is not None:
        employees = source["employees"].to_numpy(dtype=float)
        employees *= 1.0 + _relative_error(g_employees, spec.employees_error, n)
        columns["employees"] = np.maximum(np.round(employees), 1).astype(np.int64)
    return pd.DataFrame(columns).iloc[g_order.permutation(n)].reset_index(drop=True)


def worst_case_external(population: pd.DataFrame, seed: int = 3) -> pd.DataFrame:
    """The original's own key values as external file, rows shuffled (docs/method/intruders.md)."""
    _require(population, _KEY_COLUMNS + ("employees", "turnover"), "population")
    order = np.random.default_rng(np.random.SeedSequence(seed)).permutation(len(population))
    keys = population.iloc[order][list(_KEY_COLUMNS) + ["employees", "turnover"]]
    return pd.concat([keys["unit_id"].rename("ext_id"), keys], axis=1).reset_index(drop=True)


def incompatibility_profile(external: pd.DataFrame, population: pd.DataFrame) -> dict[str, float]:
    """Shares of external records that disagree with their true unit (docs/method/intruders.md), read
    off the agreement tables of ``attack.natural_protection.agreement_profile``.

    Reference values: docs/method/validation.md. Categorical keys: different WZ division, 4-digit class,
    BBR9. Metric keys present in the external file: share off by 10% or more of the true value.
    """
    metrics = [c for c in ("turnover", "employees") if c in external.columns and c in population.columns]
    profile = agreement_profile(
        external, "unit_id", population, "unit_id",
        hierarchical=("nace",), categorical=("bbr9",), metric=metrics, levels=(4, 2),
    )
    if profile["n_pairs"] == 0:
        raise InputError("no external record matches a population unit_id", column="unit_id")
    nace = profile["hierarchical"]["nace"]
    result = {
        "nace_division_differs": 1 - nace["2"]["share"],
        "nace_class_differs": 1 - nace["4"]["share"],
        "bbr9_differs": 1 - profile["categorical"]["bbr9"]["share_same"],
    }
    for column in metrics:
        result[f"{column}_off_by_more_than_10pct"] = 1 - profile["metric"][column]["below"]["10%"]["share"]
    return {key: round(float(value), 4) for key, value in result.items()}
