"""Analysis: pip counts and race detection (more race metrics to come).

Heavy libraries (numpy, pandas, matplotlib) are imported inside the functions
that need them, never at package import.
"""

from .pips import SideCount, count, is_race

__all__ = ["SideCount", "count", "is_race"]
