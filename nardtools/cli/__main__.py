"""``python -m nardtools.cli``."""

from . import main

main()
