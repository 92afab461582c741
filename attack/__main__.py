"""``python -m attack`` runs the command-line interface."""

from attack.cli import main

main()
