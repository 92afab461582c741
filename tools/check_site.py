"""Check a built documentation site for what would break it offline: every formula typeset as
MathML (no TeX left for a script to render), no script, stylesheet, font or image loaded from the
network, page links that work from disk (``page.html``, not ``folder/``), and no Sphinx role
(``:class:`…```) left literally in an API page.

Usage: ``python tools/check_site.py SITE_DIR``; exit status 1 with one line per problem.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

_REMOTE_ASSET = re.compile(
    r'<(?:script|img|source|iframe)\b[^>]*\bsrc="(?:https?:)?//[^"]*"'
    r'|<link\b[^>]*\bhref="(?:https?:)?//[^"]*"'
    r'|url\(\s*["\']?(?:https?:)?//',
    re.IGNORECASE,
)
_ARITHMATEX = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.DOTALL)
_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$")
_SPHINX_ROLE = re.compile(r":(?:class|func|meth|data|mod|attr|exc|obj):`")
_FOLDER_LINK = re.compile(r'<a\b[^>]*\bhref="(?!https?:|mailto:|#)([^"#?]*/)(?:[#?][^"]*)?"')


def problems(site: Path) -> list[str]:
    out = []
    for page in sorted(site.rglob("*")):
        if page.suffix not in (".html", ".css") or not page.is_file():
            continue
        text = page.read_text(encoding="utf-8", errors="replace")
        name = page.relative_to(site)
        for match in _REMOTE_ASSET.finditer(text):
            out.append(f"{name}: loads from the network: {match.group(0)[:120]}")
        if page.suffix != ".html":
            continue
        for match in _ARITHMATEX.finditer(text):
            if "<math" not in match.group(2) or _TEX.search(match.group(2)):
                out.append(f"{name}: formula not typeset: {match.group(2)[:120]}")
        body = re.sub(r"<(code|pre)\b.*?</\1>", "", text, flags=re.DOTALL)
        if _TEX.search(re.sub(r"<[^>]+>", "", body)):
            out.append(f"{name}: raw TeX outside a formula: {_TEX.search(body).group(0)}")
        if _SPHINX_ROLE.search(text):
            out.append(f"{name}: a Sphinx role shown literally: {_SPHINX_ROLE.search(text).group(0)}")
        for match in _FOLDER_LINK.finditer(text):
            out.append(f"{name}: link to a folder (shows a listing from disk): {match.group(1)}")
    return out


def main() -> int:
    site = Path(sys.argv[1])
    found = problems(site)
    for line in found:
        print(line)
    pages = sum(1 for _ in site.rglob("*.html"))
    print(f"{pages} pages checked: {len(found)} problem(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
