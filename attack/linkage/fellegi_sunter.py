"""The Fellegi–Sunter intruder: comparison levels, u from random pairs, m by EM, match weights.

Every key compares an external and a release value on a few ordered levels (level 0 = exact
agreement, the last = disagreement, −1 = a value is missing; docs/method/intruder-confidence.md):

* metric: exact / near (relative difference ``|a − b| / max(|a|, |b|) ≤`` ``METRIC_NEAR``) / far;
* string (case, surrounding spaces and punctuation ignored; with the key's ``normalise`` also
  diacritics, with ``encoding`` the phonetic codes compared): exact / Jaro–Winkler similarity
  (or ``1 −`` the Damerau–Levenshtein or token-set distance, when that is the key's method) at
  least each of ``STRING_SIMILAR`` / different;
* hierarchical code: exact / same prefix at each of the key's levels (longest first; default 2) /
  different;
* date (``attack.linkage.dates``): exact / day and month transposed / two parts agree / years
  at most ``DATE_NEAR_YEARS`` apart / different;
* nominal and ordinal code: exact / different.

``u_k(ℓ)``, the chance that two records of different units compare at level ℓ, is counted on
random pairs of the two files; ``m_k(ℓ)`` (two records of one unit) and the share λ of matches
among the candidate pairs (the pairs inside the blocks) come from the EM algorithm with u held
fixed (Fellegi & Sunter 1969; Jaro 1989; Winkler 1988), on the pattern counts of all candidate
pairs or of a seeded sample of them. The match weight of a pair is ``W = Σ_k log2(m_k / u_k)``
over the keys with both values present, its match probability ``λ 2^W / (λ 2^W + 1 − λ)``. The
one-to-one solvers take the cost ``W_max − W`` (``W_max`` the largest possible weight), so that
the cheapest assignment is the one of the largest total weight.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

from attack.errors import InputError
from attack.io.readers import code_column, numeric_column, source_name
from attack.linkage import term_frequency
from attack.linkage.blocking import Blocking
from attack.linkage.dates import DATE_LEVELS, date_levels, date_parts
from attack.linkage.distances import string_distances
from attack.linkage.keys import Date, Hierarchical, Key, Metric, String
from attack.linkage.names import prepare

#: The intruder's models: weighted distances (handbook §13.4) or Fellegi–Sunter match weights.
INTRUDERS: tuple[str, ...] = ("distance", "fellegi-sunter")
#: Relative difference up to which two metric values are "near".
METRIC_NEAR = 0.1
#: Jaro–Winkler similarities of the "similar" levels of a string key, highest first.
STRING_SIMILAR: tuple[float, ...] = (0.92, 0.80)
#: Prefix length of the one "prefix" level of a hierarchical key declared without levels.
DEFAULT_PREFIX = 2
#: Random pairs drawn for the u-probabilities.
U_PAIRS = 200_000
#: Candidate pairs beyond which EM runs on a seeded sample of about this many pairs.
EM_MAX_PAIRS = 30_000_000
EM_MAX_ITERATIONS = 1000
EM_TOLERANCE = 1e-9
#: Pairs whose levels are computed at once (memory of the temporaries).
CHUNK_PAIRS = 2_000_000
#: m- and u-probabilities are kept at least this far from 0 (log weights stay finite).
FLOOR = 1e-6
_PUNCTUATION = re.compile(r"[^\w\s]")
_SPACES = re.compile(r"\s+")


def normalise_text(value: object) -> str | None:
    """Lower case, punctuation removed, runs of spaces as one; None for a missing value."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    return _SPACES.sub(" ", _PUNCTUATION.sub(" ", str(value).lower())).strip()


@dataclass(frozen=True)
class Comparison:
    """The comparison levels of one key on the prepared values of both files."""

    key: Key
    labels: tuple[str, ...]
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    prefixes: tuple[int, ...] = ()
    #: The distinct normalised strings of a string key; ``a`` and ``b`` index them (−1 missing).
    texts: np.ndarray | None = field(default=None, repr=False)
    #: Term-frequency adjustment (key option ``tf``): each value code's share among the release's
    #: values (``attack.linkage.term_frequency``); None without.
    shares: np.ndarray | None = field(default=None, repr=False)

    def levels(self, ext: np.ndarray, rel: np.ndarray, pairs: bool) -> np.ndarray:
        """Levels (int8, −1 where a value is missing) of the pairs ``(ext[k], rel[k])`` or, without
        ``pairs``, of the matrix ``ext × rel``."""
        a, b = self.a[ext], self.b[rel]
        if isinstance(self.key, String) and self.key.swap_with:
            return self._swapped_levels(a, b, pairs)
        if isinstance(self.key, String):
            return self._string_levels(a, b, pairs)
        if not pairs:
            a, b = a[:, None], b[None, :]
        if isinstance(self.key, Metric):
            return _metric_levels(a, b)
        if isinstance(self.key, Hierarchical):
            return self._prefix_levels(a, b)
        if isinstance(self.key, Date):
            return date_levels(a, b)
        out = np.where(a == b, 0, 1).astype(np.int8)
        out[np.broadcast_to((a < 0) | (b < 0), out.shape)] = -1
        return out

    def _string_levels(self, a: np.ndarray, b: np.ndarray, pairs: bool) -> np.ndarray:
        """Similarity levels; a matrix is computed once per pair of distinct strings."""
        if pairs:
            sim = self._similarity(self._strings(a), self._strings(b), True)
            out = _similarity_levels(sim, a == b)
            out[(a < 0) | (b < 0)] = -1
            return out
        ua, ia = np.unique(a, return_inverse=True)
        ub, ib = np.unique(b, return_inverse=True)
        sim = self._similarity(self._strings(ua), self._strings(ub), False)
        distinct = _similarity_levels(sim, ua[:, None] == ub[None, :])
        distinct[ua < 0, :] = -1
        distinct[:, ub < 0] = -1
        return distinct[ia[:, None], ib[None, :]]

    def _swapped_levels(self, a: np.ndarray, b: np.ndarray, pairs: bool) -> np.ndarray:
        """Levels of two name columns (codes (n, 2)): the similarity of the worse-matching name in
        the better of the straight and the crossed arrangement; exact when both names agree in
        either; a missing name agrees with nothing, a record without names is missing."""
        def sim(i: int, j: int) -> np.ndarray:
            x, y = a[:, i], b[:, j]
            out = self._similarity(self._strings(x), self._strings(y), pairs)
            missing = (x < 0) if pairs else (x < 0)[:, None]
            missing = missing | ((y < 0) if pairs else (y < 0)[None, :])
            out[missing] = 0.0
            return out

        def same(i: int, j: int) -> np.ndarray:
            x, y = (a[:, i], b[:, j]) if pairs else (a[:, i][:, None], b[:, j][None, :])
            return (x == y) & (x >= 0)

        best = np.maximum(np.minimum(sim(0, 0), sim(1, 1)), np.minimum(sim(0, 1), sim(1, 0)))
        out = _similarity_levels(best, (same(0, 0) & same(1, 1)) | (same(0, 1) & same(1, 0)))
        gone_a, gone_b = np.asarray((a < 0).all(axis=1)), np.asarray((b < 0).all(axis=1))
        out[(gone_a | gone_b) if pairs else (gone_a[:, None] | gone_b[None, :])] = -1
        return out

    def _strings(self, codes: np.ndarray) -> np.ndarray:
        """The normalised strings behind ``codes`` of a string key (a missing code, −1, gives the
        first string; callers mask it)."""
        if self.texts is None:
            raise TypeError("only a string key has texts")
        return self.texts[np.maximum(codes, 0)]

    def _similarity(self, a: np.ndarray, b: np.ndarray, pairs: bool) -> np.ndarray:
        """Jaro–Winkler similarity, or ``1 −`` the distance of the key's Damerau–Levenshtein or
        token-set method."""
        method = self.key.string_method if isinstance(self.key, String) else "jaro_winkler"
        if method in ("damerau", "token_set"):
            return 1.0 - string_distances(list(a), list(b), method, pairs, dtype=np.float32)
        score = process.cpdist if pairs else process.cdist
        return score(list(a), list(b), scorer=JaroWinkler.similarity, dtype=np.float32)

    def _prefix_levels(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``a``/``b`` hold, per row, the joint integer codes of the full code and each prefix."""
        shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
        out = np.full(shape, len(self.prefixes) + 1, dtype=np.int8)
        for level in range(len(self.prefixes), -1, -1):
            out[a[..., level] == b[..., level]] = level
        out[(a[..., 0] < 0) | (b[..., 0] < 0)] = -1
        return out

    def subset(self, ext: np.ndarray, rel: np.ndarray) -> Comparison:
        return replace(self, a=self.a[ext], b=self.b[rel])

    @property
    def sizes(self) -> tuple[int, int]:
        return len(self.a), len(self.b)


def _similarity_levels(sim: np.ndarray, equal: np.ndarray) -> np.ndarray:
    """Levels from Jaro–Winkler similarities; ``equal`` marks equal normalised strings."""
    out = np.full(sim.shape, len(STRING_SIMILAR) + 1, dtype=np.int8)
    for level, threshold in reversed(list(enumerate(STRING_SIMILAR, start=1))):
        out[sim >= threshold] = level
    out[equal] = 0
    return out


def _metric_levels(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        relative = np.abs(a - b) / np.maximum(np.abs(a), np.abs(b))
    out = np.where(a == b, 0, np.where(relative <= METRIC_NEAR, 1, 2)).astype(np.int8)
    out[np.isnan(a) | np.isnan(b)] = -1
    return out


def comparisons(external: pd.DataFrame, release: pd.DataFrame, keys: Sequence[Key]) -> tuple[Comparison, ...]:
    """The comparison of every key with a positive weight, on the values of both files."""
    out = []
    for key in keys:
        if key.weight == 0:
            continue
        ext_col, rel_col = key.external_column, key.name
        if isinstance(key, Metric):
            a = numeric_column(external, ext_col, required=True)
            b = numeric_column(release, rel_col, required=True)
            out.append(Comparison(key, ("exact", f"near (<= {METRIC_NEAR:g})", "far"), a, b))
            continue
        a = code_column(external, ext_col, required=True)
        b = code_column(release, rel_col, required=True)
        if isinstance(key, Date):
            out.append(Comparison(key, DATE_LEVELS, date_parts(a, file=source_name(external), column=ext_col),
                                  date_parts(b, file=source_name(release), column=rel_col)))
        elif isinstance(key, String):
            parts = [a, b]
            if key.swap_with:
                parts = [a, code_column(external, key.swap_with, required=True),
                         b, code_column(release, key.swap_with, required=True)]
            values = np.concatenate(parts)
            if not key.normalise:  # the light normalisation every string key gets
                values = np.array([normalise_text(x) for x in values], dtype=object)
            values = prepare(values, normalise=key.normalise, encoding=key.encoding)
            codes, uniques = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
            measure = key.string_method if key.string_method in ("damerau", "token_set") else "jaro-winkler"
            labels = ("exact", *(f"{measure} >= {t:g}" for t in STRING_SIMILAR), "different")
            if key.swap_with:  # columns: the key's name, the other name
                n_a = len(a)
                codes = np.concatenate([np.stack([codes[:n_a], codes[n_a:2 * n_a]], axis=1),
                                        np.stack([codes[2 * n_a:2 * n_a + len(b)], codes[2 * n_a + len(b):]], axis=1)])
                labels = ("exact (either order)", *(f"both names {measure} >= {t:g}" for t in STRING_SIMILAR),
                          "different")
            out.append(Comparison(key, labels, codes[: len(a)], codes[len(a):],
                                  texts=np.asarray(uniques, dtype=object),
                                  shares=_shares(key, codes[len(a):], len(uniques))))
        elif isinstance(key, Hierarchical):
            prefixes = tuple(sorted(set(key.levels or (DEFAULT_PREFIX,)), reverse=True))
            columns = [_joint_codes(a, b, None)] + [_joint_codes(a, b, n) for n in prefixes]
            a_codes = np.stack([c[0] for c in columns], axis=1)
            b_codes = np.stack([c[1] for c in columns], axis=1)
            labels = ("exact", *(f"prefix {n}" for n in prefixes), "different")
            out.append(Comparison(key, labels, a_codes, b_codes, prefixes))
        else:
            a_codes, b_codes = _joint_codes(a, b, None)
            n_values = int(max(a_codes.max(initial=-1), b_codes.max(initial=-1))) + 1
            out.append(Comparison(key, ("exact", "different"), a_codes, b_codes,
                                  shares=_shares(key, b_codes, n_values)))
    if not out:
        raise InputError("every key has weight 0", field="keys")
    return tuple(out)


def _shares(key: Key, release_codes: np.ndarray, n_values: int) -> np.ndarray | None:
    return term_frequency.value_shares(release_codes, n_values) if key.weighs_by_frequency else None


def _joint_codes(a: np.ndarray, b: np.ndarray, prefix: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes shared by both files (−1 missing), of the whole value or its first characters."""
    values = pd.Series(np.concatenate([a, b]), dtype=object)
    if prefix is not None:
        values = values.where(values.isna(), values.astype(str).str[:prefix])
    codes = pd.factorize(values, use_na_sentinel=True)[0]
    return codes[: len(a)], codes[len(a):]


@dataclass(frozen=True)
class EMResult:
    """m-probabilities per key and level, the match share λ among the pairs, and convergence."""

    m: tuple[np.ndarray, ...]
    match_share: float
    iterations: int
    converged: bool


def expectation_maximisation(
    patterns: np.ndarray,
    counts: np.ndarray,
    u: Sequence[np.ndarray],
    *,
    match_share: float = 0.01,
    max_iterations: int = EM_MAX_ITERATIONS,
    tolerance: float = EM_TOLERANCE,
) -> EMResult:
    """m-probabilities and match share by EM with the u-probabilities held fixed.

    ``patterns`` (P × K, −1 = missing) are the distinct comparison patterns and ``counts`` how
    many pairs show each; ``u[k]`` sums to 1 over the levels of key k. A missing comparison
    contributes to neither side. Start: m puts 0.9 on exact agreement.
    """
    counts = np.asarray(counts, dtype=float)
    m = []
    for u_k in u:
        start = np.full(u_k.size, 0.1 / max(u_k.size - 1, 1))
        start[0] = 0.9 if u_k.size > 1 else 1.0
        m.append(start)
    log_u = _log_likelihood(patterns, u)
    lam = float(np.clip(match_share, 1e-9, 0.5))
    converged = False
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007 (the count is returned)
        log_odds = np.log(lam) - np.log1p(-lam) + _log_likelihood(patterns, m) - log_u
        g = counts / (1.0 + np.exp(-np.clip(log_odds, -700, 700)))  # expected matches per pattern
        total = g.sum()
        new_lam = float(np.clip(total / counts.sum(), 1e-12, 1 - 1e-12))
        new_m = []
        for k, m_k in enumerate(m):
            column = patterns[:, k]
            present = column >= 0
            mass = np.bincount(column[present], weights=g[present], minlength=m_k.size)
            mass = np.maximum(mass / mass.sum(), FLOOR) if mass.sum() > 0 else m_k
            new_m.append(mass / mass.sum())
        change = max(abs(new_lam - lam), *(float(np.abs(a - b).max()) for a, b in zip(new_m, m, strict=True)))
        lam, m = new_lam, new_m
        if change < tolerance:
            converged = True
            break
    return EMResult(tuple(m), lam, iterations, converged)


def _log_likelihood(patterns: np.ndarray, probabilities: Sequence[np.ndarray]) -> np.ndarray:
    out = np.zeros(patterns.shape[0])
    for k, p in enumerate(probabilities):
        column = patterns[:, k]
        present = column >= 0
        out[present] += np.log(p[column[present]])
    return out


@dataclass
class MatchWeights:
    """Match weights of a block (or of the files) in the shape the one-to-one solvers take.

    ``cost`` is ``W_max − W``, never negative. The solvers see a distance without an
    embedding (no ``components``: dense, chunked or candidate-based search over ``cost``)
    whose largest value, ``Σ weight · missing_value`` over ``keys``, is ``W_max − W_min``: not
    linking a record costs as much as its worst link.
    """

    comparisons: tuple[Comparison, ...]
    weights: tuple[np.ndarray, ...]
    components: tuple = ()
    offsets: np.ndarray = field(default_factory=lambda: np.zeros(0))
    scales: np.ndarray = field(default_factory=lambda: np.zeros(0))
    notes: tuple[str, ...] = ()
    #: Per comparison, the exact-agreement weight of each value code (term-frequency
    #: adjustment), or None; empty: no key is adjusted.
    value_weights: tuple[np.ndarray | None, ...] = ()

    def _ranges(self) -> Iterator[np.ndarray]:
        extra = self.value_weights or (None,) * len(self.weights)
        for w, v in zip(self.weights, extra, strict=True):
            yield w if v is None or v.size == 0 else np.concatenate([w, v])

    @property
    def top(self) -> float:
        """The largest weight a pair can reach (every key at its best level, or missing)."""
        return float(sum(max(0.0, float(w.max())) for w in self._ranges()))

    @property
    def bottom(self) -> float:
        """The smallest weight a pair can reach."""
        return float(sum(min(0.0, float(w.min())) for w in self._ranges()))

    @property
    def keys(self) -> tuple[Key, ...]:
        return (Metric(name="match weight"),)

    @property
    def missing_values(self) -> np.ndarray:
        return np.array([self.top - self.bottom])

    def weight(self, ext: np.ndarray, rel: np.ndarray, pairs: bool = False) -> np.ndarray:
        """Match weight ``W`` of the pairs (``pairs``) or of the matrix ``ext × rel``."""
        total = None
        extra = self.value_weights or (None,) * len(self.weights)
        for comparison, w, by_value in zip(self.comparisons, self.weights, extra, strict=True):
            table = np.concatenate([w, [0.0]])  # level −1 (missing) indexes the trailing 0
            levels = comparison.levels(ext, rel, pairs)
            part = table[levels]
            if by_value is not None:
                codes = comparison.a[ext] if pairs else comparison.a[ext][:, None]
                part = term_frequency.adjust(part, levels, codes, by_value)
            total = part if total is None else total + part
        assert total is not None  # a model compares at least one key
        return total

    def cost(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        return self.top - self.weight(ext, rel)

    def pair_cost(self, ext: np.ndarray, rel: np.ndarray) -> np.ndarray:
        return self.top - self.weight(ext, rel, pairs=True)

    def subset(self, ext: np.ndarray, rel: np.ndarray) -> MatchWeights:
        return replace(self, comparisons=tuple(c.subset(ext, rel) for c in self.comparisons))

    @property
    def sizes(self) -> tuple[int, int]:
        return self.comparisons[0].sizes


@dataclass(frozen=True)
class FellegiSunterModel:
    """The fitted model: comparisons, u (random pairs), m and λ (EM), and the weights."""

    comparisons: tuple[Comparison, ...]
    u: tuple[np.ndarray, ...]
    em: EMResult
    n_random_pairs: int
    n_em_pairs: int
    n_candidate_pairs: int

    @property
    def weights(self) -> MatchWeights:
        by_value = tuple(None if c.shares is None else term_frequency.value_weights(m[0], c.shares)
                         for c, m in zip(self.comparisons, self.em.m, strict=True))
        return MatchWeights(self.comparisons, tuple(np.log2(m / u) for m, u in zip(self.em.m, self.u, strict=True)),
                            value_weights=by_value if any(v is not None for v in by_value) else ())

    def probability(self, weight: np.ndarray) -> np.ndarray:
        """Match probability ``λ 2^W / (λ 2^W + 1 − λ)`` of pairs of weight ``W``."""
        lam = self.em.match_share
        log_odds = np.log(lam) - np.log1p(-lam) + np.asarray(weight, dtype=float) * np.log(2.0)
        return 1.0 / (1.0 + np.exp(-np.clip(log_odds, -700, 700)))

    def to_dict(self) -> dict:
        weights = self.weights.weights
        return {
            "model": "fellegi-sunter",
            "match_share": self.em.match_share,
            "em_iterations": self.em.iterations,
            "em_converged": self.em.converged,
            "random_pairs": self.n_random_pairs,
            "em_pairs": self.n_em_pairs,
            "candidate_pairs": self.n_candidate_pairs,
            "keys": [
                {
                    "name": c.key.name,
                    **({"term_frequency": True} if c.shares is not None else {}),
                    "levels": [
                        {"level": label, "m": float(m[i]), "u": float(u[i]), "weight": float(w[i])}
                        for i, label in enumerate(c.labels)
                    ],
                }
                for c, m, u, w in zip(self.comparisons, self.em.m, self.u, weights, strict=True)
            ],
        }


def fit(
    external: pd.DataFrame,
    release: pd.DataFrame,
    keys: Sequence[Key],
    blocking: Blocking,
    *,
    seed: int = 0,
    random_pairs: int = U_PAIRS,
    em_pairs: int = EM_MAX_PAIRS,
) -> FellegiSunterModel:
    """Fit the Fellegi–Sunter model: u on ``random_pairs`` random pairs of the two files, m and λ
    by EM on the candidate pairs of ``blocking`` (a seeded sample of ``em_pairs`` when there
    are more)."""
    rng = np.random.default_rng(seed)
    comps = comparisons(external, release, keys)
    n_ext, n_rel = len(external), len(release)
    n_random = min(random_pairs, n_ext * n_rel)
    if n_random == 0:
        raise InputError("both files need records to fit the Fellegi–Sunter model")
    ext = rng.integers(0, n_ext, n_random)
    rel = rng.integers(0, n_rel, n_random)
    u = []
    for c in comps:
        levels = c.levels(ext, rel, pairs=True)
        seen = np.bincount(levels[levels >= 0], minlength=len(c.labels)).astype(float)
        u.append(np.maximum((seen + 0.5) / (seen.sum() + 0.5 * len(c.labels)), FLOOR))
    patterns, counts, n_candidates = candidate_patterns(comps, blocking, em_pairs, rng)
    start = min(n_ext, n_rel) / max(n_candidates, 1)
    em = expectation_maximisation(patterns, counts, u, match_share=start)
    return FellegiSunterModel(comps, tuple(u), em, n_random, int(counts.sum()), n_candidates)


def candidate_patterns(
    comps: Sequence[Comparison], blocking: Blocking, limit: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, int]:
    """Distinct comparison patterns of the candidate pairs and their counts: all pairs, or, when
    there are more than ``limit``, the pairs of a uniform random sample of the external records
    (each with every release record of its block), about ``limit`` pairs."""
    sizes = np.array([b.n_pairs for b in blocking], dtype=np.int64)
    n_candidates = int(sizes.sum())
    radix = np.array([len(c.labels) + 1 for c in comps], dtype=np.int64)
    place = np.concatenate([[1], np.cumprod(radix)[:-1]])
    counts = np.zeros(int(np.prod(radix)), dtype=np.int64)

    def add(rows: np.ndarray, cols: np.ndarray, pairs: bool) -> None:
        code = np.zeros((rows.size,) if pairs else (rows.size, cols.size), dtype=np.int64)
        for c, p in zip(comps, place, strict=True):
            code += (c.levels(rows, cols, pairs=pairs).astype(np.int64) + 1) * p
        counts[:] += np.bincount(code.ravel(), minlength=counts.size)

    share = min(1.0, limit / max(n_candidates, 1))
    for block in blocking:
        keep = rng.random(block.external.size) < share if share < 1.0 else None
        if block.pairs is not None:  # multi-pass blocking: only the candidate pairs
            rows, cols = block.pairs.nonzero()
            if keep is not None:
                rows, cols = rows[keep[rows]], cols[keep[rows]]
            for start in range(0, rows.size, CHUNK_PAIRS):
                part = slice(start, start + CHUNK_PAIRS)
                add(block.external[rows[part]], block.release[cols[part]], pairs=True)
            continue
        rows = block.external
        if keep is not None:  # a uniform sample of the block's external rows, each with all its pairs
            rows = np.sort(rows[keep])
        step = max(1, CHUNK_PAIRS // max(len(block.release), 1))
        for start in range(0, rows.size, step):
            add(rows[start:start + step], block.release, pairs=False)
    present = np.flatnonzero(counts)
    patterns = (present[:, None] // place[None, :]) % radix[None, :] - 1
    return patterns, counts[present], n_candidates
