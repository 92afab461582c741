"""A report page as PDF, rendered by WeasyPrint (the optional extra ``pdf``).

Why WeasyPrint: it lays out HTML and CSS itself in Python (with Pango for text), so the PDF
comes from the same page as the HTML report, and it implements the paged-media CSS a filed
document needs — ``@page`` margin boxes with ``counter(page)``/``counter(pages)`` — which puts
the page number and the result's digest on every page. It needs no browser and no network.
Alternatives: a headless browser (not a Python dependency, and it would have to be kept off the
network), ReportLab (a second layout written by hand beside the HTML) or matplotlib's PDF backend
(figures only).

Nothing is fetched: every asset of a report is inline, and the URL fetcher given to WeasyPrint
refuses every URL but the ``data:`` URLs of images inside the page, so a link or a reference in
the page can never make it reach the network or read a file.
"""

from __future__ import annotations

from typing import Any

from attack.errors import InputError

__all__ = ["NETWORK_REFUSED", "html_to_pdf", "pdf_document"]

NETWORK_REFUSED = "attack renders reports offline: no URL is fetched"
INSTALL = 'pip install "attack[pdf]"'


def _weasyprint() -> Any:
    try:
        import weasyprint
    except ImportError as error:
        raise InputError(f"PDF output needs WeasyPrint, which is not installed ({error}); install it with: "
                         f"{INSTALL}") from None
    return weasyprint


def _refusing_fetcher(weasyprint: Any) -> Any:
    """A URL fetcher that fetches nothing but ``data:`` URLs, the images written into the page
    itself (matplotlib's heat maps and colour bars); recent WeasyPrint takes a ``URLFetcher``
    object, earlier versions a function."""
    base = getattr(getattr(weasyprint, "urls", None), "URLFetcher", None)
    if base is None:
        def refuse(url: str, *args: Any, **kwargs: Any) -> Any:
            if url.startswith("data:"):
                return weasyprint.default_url_fetcher(url)
            raise ValueError(f"{NETWORK_REFUSED} ({url})")
        return refuse

    class Refusing(base):  # type: ignore[misc, valid-type]
        def fetch(self, url: str, headers: Any = None) -> Any:
            if url.startswith("data:"):
                return super().fetch(url, headers)
            raise ValueError(f"{NETWORK_REFUSED} ({url})")

    return Refusing()


def pdf_document(html: str) -> Any:
    """The laid-out document (``weasyprint.Document``: pages, their text boxes) of an HTML page."""
    weasyprint = _weasyprint()
    return weasyprint.HTML(string=html, base_url=None, url_fetcher=_refusing_fetcher(weasyprint)).render()


def html_to_pdf(html: str) -> bytes:
    """The PDF of a self-contained HTML page (print stylesheet, ``@page`` rules applied)."""
    return pdf_document(html).write_pdf()
