"""The check every bad-input test of the command line makes: exit 2, one error line saying what
was wrong, no traceback and no output file left behind."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from attack.cli import main


def refused(*args: object, says: str, outputs: tuple[str | Path, ...] = ()) -> str:
    """Run ``attack ARGS``; assert it is refused as a user error saying ``says``; the error line."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    code, output = result.exit_code, result.output
    assert code == 2, output
    assert "Traceback" not in output
    errors = [line for line in output.splitlines() if line.startswith("attack: error:")]
    assert len(errors) == 1, output
    assert says in errors[0], errors[0]
    for path in outputs:
        assert not Path(path).exists(), path
    return errors[0]
