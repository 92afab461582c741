"""``attack inspect``: what attack will read from a file, before any attack runs."""

from __future__ import annotations

from pathlib import Path

from attack.io.columns import describe_column
from attack.io.readers import ReadOptions, read


def inspect_file(path: str | Path, options: ReadOptions | None = None) -> dict:
    """How ``path`` is read (format, encoding, dialect, rows) and, per column, its role, missing
    share, distinct values, leading-zero codes and warnings; JSON-ready."""
    options = options or ReadOptions()
    table = read(path, options=options)
    return {
        "file": table.source,
        "reading": table.info.to_dict(),
        "columns": [describe_column(table.frame, c, options.codes).to_dict()
                    for c in table.frame.columns],
    }


def render_inspection(report: dict) -> str:
    """The inspection as a plain-text table with the notes below it."""
    reading = report["reading"]
    how = [f"format {reading['format']}"]
    for key, label in (("encoding", "encoding"), ("sep", "separator"), ("decimal", "decimal"),
                       ("thousands", "thousands"), ("sheet", "sheet")):
        if key in reading:
            how.append(f"{label} {reading[key]!r}")
    if reading["na"]:
        how.append("missing codes " + ", ".join(map(repr, reading["na"])))
    lines = [f"{report['file']}: {', '.join(how)}",
             f"{reading['rows']} rows, {reading['columns']} columns", ""]
    rows = [("column", "role", "missing", "distinct", "lead-0", "examples")]
    for c in report["columns"]:
        rows.append((c["name"], c["role"], f"{100 * c['missing_share']:.1f}%", str(c["distinct"]),
                     str(c["leading_zero_codes"]), ", ".join(c["examples"])))
    widths = [max(len(r[j]) for r in rows) for j in range(5)]
    for r in rows:
        lines.append("  ".join(v.ljust(w) if j in (0, 1) else v.rjust(w)
                               for j, (v, w) in enumerate(zip(r[:5], widths, strict=True))) + "  " + r[5])
    notes = [f"  {c['name']}: {note}" for c in report["columns"] for note in c["notes"]]
    if notes:
        lines += ["", "notes:", *notes]
    return "\n".join(lines)
