"""The command line's own helpers: option declarations shared by several commands
(``options``) and what every command does around its one library call (``app``: the group,
errors as one line, exit status, files and summaries). They use the public API only: ``attack``,
``attack.vocabulary``, ``attack.frontend`` and ``attack.ui.server`` (tests/test_cli_public.py)."""
