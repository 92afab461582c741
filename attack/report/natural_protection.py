"""Agreement tables of the natural protection (how often external and release values agree)."""

from __future__ import annotations


def _pct(share: float | None) -> str:
    return "–" if share is None else f"{100 * share:.1f}%"


def agreement_tables(profile: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """The agreement tables as ``(caption, header, rows)`` of text, one per variable kind."""
    tables = []
    hier = profile.get("hierarchical") or {}
    if hier:
        levels = [str(k) for k in profile["levels"]]
        rows = [
            [col, *(f"{t[k]['same']}/{t[k]['n']} ({_pct(t[k]['share'])})" for k in levels)]
            for col, t in hier.items()
        ]
        tables.append(("identical code at", ["code", *(f"{k}-digit" for k in levels)], rows))
    cat = profile.get("categorical") or {}
    if cat:
        rows = [
            [col, str(t["same"]), str(t["different"]), str(t["missing"]), _pct(t["share_same"])]
            for col, t in cat.items()
        ]
        tables.append(("categorical keys", ["key", "same", "different", "missing", "share same"], rows))
    met = profile.get("metric") or {}
    if met:
        first = next(iter(met.values()))
        classes, below = list(first["classes"]), list(first["below"])
        header = ["key", "n", "undefined", *classes, *(f"below {b}" for b in below)]
        rows = []
        for col, t in met.items():
            cells = [f"{t['classes'][c]['count']} ({_pct(t['classes'][c]['share'])})" for c in classes]
            cells += [f"{t['below'][b]['count']} ({_pct(t['below'][b]['share'])})" for b in below]
            rows.append([col, str(t["n"]), str(t["undefined"]), *cells])
        tables.append(("relative deviation |e − o| / |o|", header, rows))
    return tables


def render_markdown(profile: dict) -> str:
    """Compact Markdown tables of an ``agreement_profile`` (one table per variable kind)."""
    lines = [f"Verifiable pairs: {profile['n_pairs']}", ""]
    for _, header, rows in agreement_tables(profile):
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
