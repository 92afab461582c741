"""A local web interface: edit a scenario file in forms, run it, read the report, sign and verify.

Optional (``pip install "attack[ui]"``) and never imported by ``import attack``; ``attack ui``
starts it. The screens edit the scenario file through the settings models, runs are the command
line's own commands in a child process, so the file the UI saves gives ``attack run`` the same
result byte for byte.
"""
