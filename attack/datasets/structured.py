"""Seeded synthetic files with structure (docs/method/structure.md): a panel of the KSE-like
population over several waves, establishments within enterprises, and households of persons.

* ``make_panel``: the population of ``make_population`` in wave 1; from wave to wave every unit's
  employees and turnover grow by a common rate and a unit's own log-normal growth (the cost block
  follows turnover), a share of the units exits and new units enter (long format: one row per
  unit and wave, column ``wave``).
* ``make_establishments``: each enterprise of a population split into establishments (one, or
  more for larger firms), each with its own region and a share of the employees and turnover.
* ``make_households``: households of one to six persons (sizes as in EU-SILC), with region,
  age, sex and personal income; members' ages follow a household's type (single, couple,
  family), so the composition of a household is as telling as in real files.

Every random draw comes from generators spawned from one ``numpy.random.SeedSequence`` per call.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from attack.datasets.population import make_population
from attack.errors import InputError

__all__ = ["make_establishments", "make_households", "make_panel"]

#: Columns of the cost block that follow turnover from wave to wave.
_COSTS = ("personnel_costs", "material_costs", "energy_costs", "goods_for_resale", "rd_expenditure", "investment",
          "depreciation")
#: Household sizes 1 … 6 with EU-SILC's shares (laeken::eusilc: 1,745; 1,812; 1,049; 877; 363; 154 of 6,000).
_HOUSEHOLD_SHARES = np.array([1745, 1812, 1049, 877, 363, 154]) / 6000
_REGIONS = ("Burgenland", "Carinthia", "Lower Austria", "Salzburg", "Styria", "Tyrol", "Upper Austria", "Vienna",
            "Vorarlberg")


def make_panel(n_units: int = 17000, waves: int = 5, seed: int = 1, *, growth: float = 0.02,
               growth_sd: float = 0.1, exit_rate: float = 0.05, entry_rate: float = 0.05) -> pd.DataFrame:
    """A panel of the KSE-like population (module docstring): ``growth`` is the common log growth
    per wave, ``growth_sd`` the standard deviation of a unit's own; each wave ``exit_rate`` of the
    units leave and ``entry_rate`` × ``n_units`` new ones enter. Waves are numbered 1 … ``waves``."""
    if waves < 1 or n_units < 1:
        raise InputError(f"waves and n_units must be positive, got {waves} and {n_units}")
    if not (0 <= exit_rate < 1 and 0 <= entry_rate < 1 and growth_sd >= 0):
        raise InputError("exit and entry rates lie in [0, 1) and growth_sd is not negative")
    g_growth, g_exit = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    current = make_population(n_units, seed)
    entrants = make_population(max(1, int(round(entry_rate * n_units)) * max(waves - 1, 1)), seed + 1)
    entrants["unit_id"] = np.char.add("N", np.char.mod("%07d", np.arange(1, len(entrants) + 1)))
    per_wave = int(round(entry_rate * n_units))
    frames = [current.assign(wave=1)]
    for wave in range(2, waves + 1):
        stay = g_exit.random(len(current)) >= exit_rate
        current = current[stay].copy()
        shock = g_growth.normal(0.0, growth_sd, size=(2, len(current)))
        employees = np.maximum(1, np.round(current["employees"].to_numpy() * np.exp(growth / 2 + shock[0])))
        factor = np.exp(growth + 0.6 * shock[0] + 0.8 * shock[1])
        current["employees"] = employees.astype(np.int64)
        for column in ("turnover", *_COSTS):
            current[column] = np.round(current[column].to_numpy() * factor, 1)
        new = entrants.iloc[(wave - 2) * per_wave:(wave - 1) * per_wave]
        current = pd.concat([current, new], ignore_index=True)
        frames.append(current.assign(wave=wave))
    return pd.concat(frames, ignore_index=True)


def make_establishments(population: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    """The establishments of every enterprise of ``population`` (``make_population``'s columns):
    ``enterprise_id``, ``establishment_id``, ``nace`` (the enterprise's), ``bbr9`` (the first
    establishment at the enterprise's seat, the others anywhere), ``employees`` and ``turnover``
    (the enterprise's split by Dirichlet shares, employees at least 1 each)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    employees = population["employees"].to_numpy()
    count = 1 + np.minimum(rng.poisson(np.log(np.maximum(employees, 1)) / 3), np.maximum(employees - 1, 0))
    firm = np.repeat(np.arange(len(population)), count)
    first = np.concatenate([[True], firm[1:] != firm[:-1]])
    weights = rng.gamma(1.0, size=firm.size)
    shares = weights / np.bincount(firm, weights=weights)[firm]
    staff = np.maximum(1, np.floor(shares * employees[firm])).astype(np.int64)
    seat = population["bbr9"].to_numpy()[firm]
    region = np.where(first, seat, (rng.integers(1, 10, firm.size)).astype(str))
    number = np.arange(firm.size) - np.flatnonzero(first)[np.cumsum(first) - 1] + 1
    return pd.DataFrame({
        "enterprise_id": population["unit_id"].to_numpy()[firm],
        "establishment_id": np.char.add(np.char.add(population["unit_id"].to_numpy()[firm].astype(str), "-"),
                                        number.astype(str)),
        "nace": population["nace"].to_numpy()[firm],
        "bbr9": region,
        "employees": staff,
        "turnover": np.round(shares * population["turnover"].to_numpy()[firm], 1),
    })


def make_households(n_households: int = 6000, seed: int = 1) -> pd.DataFrame:
    """Households of persons (module docstring): ``household_id``, ``person_id``, ``region``,
    ``size``, ``age``, ``sex`` and ``income`` (personal net income; missing under 16)."""
    if n_households < 1:
        raise InputError(f"n_households must be positive, got {n_households}")
    g_size, g_people, g_income = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))
    size = g_size.choice(np.arange(1, 7), size=n_households, p=_HOUSEHOLD_SHARES)
    region = g_size.choice(len(_REGIONS), size=n_households)
    head_age = np.clip(g_people.normal(50, 17, n_households), 18, 95)
    household = np.repeat(np.arange(n_households), size)
    position = np.arange(household.size) - np.repeat(np.cumsum(size) - size, size)
    partner = (position == 1) & (g_people.random(household.size) < 0.8)
    child = (position >= 1) & ~partner
    age = head_age[household].copy()
    age[partner] = np.clip(age[partner] + g_people.normal(-2, 4, partner.sum()), 18, 99)
    age[child] = np.clip(age[child] - g_people.uniform(18, 40, child.sum()), 0, 99)
    age = np.round(age).astype(np.int64)
    sex = np.where(g_people.random(household.size) < 0.5, "female", "male")
    sex[partner] = np.where(sex[np.flatnonzero(partner) - 1] == "female", "male", "female")
    income = np.exp(g_income.normal(9.6, 0.8, household.size)) * (g_income.random(household.size) > 0.15)
    income = np.where(age < 16, np.nan, np.round(income, 2))
    return pd.DataFrame({
        "household_id": household + 1,
        "person_id": np.arange(1, household.size + 1),
        "region": np.array(_REGIONS)[region[household]],
        "size": size[household],
        "age": age,
        "sex": sex,
        "income": income,
    })
