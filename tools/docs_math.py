"""MkDocs hook: formulas typeset at build time as MathML, so the site needs no script and no
network (research data centres often have neither).

pymdownx.arithmatex (generic mode) wraps each formula written as ``\\( … \\)`` or ``\\[ … \\]`` in
an element of class ``arithmatex``; this hook replaces its TeX by the MathML that latex2mathml
makes of it, which browsers render natively. A formula it cannot convert fails the build, naming
the page and the formula.
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert
from mkdocs.exceptions import PluginError

_MATH = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*\\(?P<open>[(\[])(?P<tex>.*?)\\(?P<close>[)\]])\s*</(?P=tag)>',
    re.DOTALL,
)


def _mathml(match: re.Match, page: str) -> str:
    tex = html.unescape(match.group("tex")).strip()
    display = "block" if match.group("open") == "[" else "inline"
    try:
        markup = convert(tex, display=display)
    except Exception as exc:  # any failure of the converter is a broken formula on a page
        raise PluginError(f"{page}: cannot typeset the formula {tex!r}: {exc}") from exc
    return f'<{match.group("tag")} class="arithmatex">{markup}</{match.group("tag")}>'


def on_page_content(content: str, page, config, files) -> str:
    """Replace every arithmatex formula of the page by MathML."""
    return _MATH.sub(lambda m: _mathml(m, page.file.src_path), content)
