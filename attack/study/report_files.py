"""A result reported again from its JSON: the regular HTML report, or the report a release board
files (with its PDF). Every number comes from the result file; its verdict is first recomputed from its figures as
``attack verify`` does, and a result whose verdict does not follow is refused."""

from __future__ import annotations

import importlib.metadata
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attack.errors import InputError
from attack.report.documents import load_result, report_html, report_passed
from attack.report.notebook import one_line, result_html
from attack.report.safe_text import checked_url
from attack.study.result_check import check_result


@dataclass(frozen=True)
class RenderedReport:
    """A result's report: the HTML page, its PDF (when asked) and the verdict recorded in it."""

    html: str
    pdf: bytes | None
    passed: bool

    def _facts(self) -> list[str]:
        return [f"HTML page of {len(self.html):,} characters",
                "no PDF" if self.pdf is None else f"PDF of {len(self.pdf):,} bytes"]

    def __repr__(self) -> str:
        return one_line("RenderedReport", self.passed, *self._facts())

    def _repr_html_(self) -> str:
        return result_html("Report rendered from a result file", self.passed, self._facts())

    def to_dict(self) -> dict[str, Any]:
        """The verdict, the page and the size of the PDF (its bytes are in ``.pdf``)."""
        return {"passed": self.passed, "html": self.html, "pdf_bytes": None if self.pdf is None else len(self.pdf)}


def report_path(result: str | Path, board: bool = False) -> Path:
    """Where the report of ``result`` goes by default: beside it, ``RESULT.board.html`` for the
    board report, else ``RESULT.html``."""
    result = Path(result)
    return result.with_name(result.name.removesuffix(".json") + (".board.html" if board else ".html"))


def check_board(board: bool, context: str | None) -> None:
    """A board report needs its release context, and only a board report takes one."""
    if board and context is None:
        raise InputError("--board needs --context: public-use, scientific-use, enclave or a TOML file with the "
                         "[context] questionnaire (who may get the file decides which controls stand beside the "
                         "data's protection)")
    if context is not None and not board:
        raise InputError("--context belongs to the board report: add --board")


def render_report(result: str | Path, *, board: bool = False, context: str | None = None,
                  pdf: str | Path | None = None, docs: str = "") -> RenderedReport:
    """Report the result file ``result`` (JSON of ``attack run``, ``demo``, ``link``, ``synth``
    or ``tune``) again.

    Parameters
    ----------
    result
        The JSON result file.
    board
        The release-board report (needs ``context``: public-use, scientific-use, enclave or a
        TOML file with the [context] questionnaire, docs/method/release-context.md) instead of
        the regular report.
    pdf
        Where the PDF will be written, if wanted (needs the ``pdf`` extra); the board report
        records it in the command that reproduces it.
    docs
        Address of the documentation site the board report's method links point to.
    """
    check_board(board, context)
    checked_url(docs)
    result = Path(result)
    document, digest = load_result(result)
    check_result(document, file=str(result))
    if board:
        from attack.report.board import BoardInput, render_board_html

        versions = {}
        for name in ("numpy", "pandas", "matplotlib", *(["weasyprint"] if pdf else [])):
            try:
                versions[name] = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                continue
        from attack.risk.release_context import resolve_context

        questionnaire = resolve_context(str(context))
        # file names only: the report leaves the secure room, the folders of this machine do not
        context_word = Path(str(context)).name if Path(str(context)).suffix else str(context)
        command = shlex.join(["attack", "report", result.name, "--board", "--context", context_word,
                              *(["--pdf", Path(pdf).name] if pdf else [])])
        text = render_board_html(document, BoardInput(context=questionnaire.recipient, digest=digest,
                                                      file_name=result.name, command=command, docs=docs,
                                                      versions=versions, questionnaire=questionnaire.record()))
    else:
        text = report_html(document, result.stem)
    printed = None
    if pdf:
        from attack.report.pdf import html_to_pdf

        printed = html_to_pdf(text)
    return RenderedReport(text, printed, bool(report_passed(document)))
