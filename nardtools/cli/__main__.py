"""``python -m nardtools.cli``: the command line, as the ``nardtools`` script runs it."""

from . import run

run()
