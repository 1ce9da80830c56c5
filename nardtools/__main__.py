"""``python -m nardtools``: the command line (as the ``nardtools`` script)."""

from .cli import run

run()
