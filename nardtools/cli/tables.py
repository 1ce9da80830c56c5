"""Tables on the terminal that fit its width: no header or number is ever
broken across lines.  Columns are kept in order while they fit; the rest are
named in a note; on a terminal too narrow for two columns each row is
printed as ``column: value`` lines."""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: A text cell (a file name, a play) wider than this is cut with an ellipsis.
MAX_TEXT = 28


def cell(value: object) -> str:
    """How one value is shown: floats to four significant digits, missing as blank."""
    import pandas as pd

    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, int)) and math.isnan(float(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _width(header: str, values: list[str], numeric: bool) -> int:
    longest = max((len(v) for v in values), default=0)
    return max(len(header), longest if numeric else min(longest, MAX_TEXT))


def render(frame: pd.DataFrame, *, title: str, rows: int, width: int) -> str:
    """The first ``rows`` rows of a pandas frame as text ``width`` characters wide."""
    from io import StringIO

    from rich.console import Console
    from rich.table import Table

    shown = frame.head(rows)
    columns = [str(c) for c in shown.columns]
    values = {c: [cell(v) for v in shown[c]] for c in shown.columns}
    numeric = {str(c): shown[c].dtype.kind in "iufb" or str(shown[c].dtype) in ("Int64", "boolean", "Float64")
               for c in shown.columns}
    widths = [_width(c, values[col], numeric[c]) for c, col in zip(columns, shown.columns)]
    used, fit = 1, 0
    for w in widths:
        if used + w + 3 > width:
            break
        used += w + 3
        fit += 1
    out = StringIO()
    console = Console(file=out, width=width, no_color=True, highlight=False, emoji=False)
    if fit < 2 < len(columns) or fit < len(columns) == 1:
        console.print(f"{title} ({len(frame)} rows)", soft_wrap=True)
        label = max(len(c) for c in columns)
        for i in range(len(shown)):
            console.print("", soft_wrap=True)
            for c, col in zip(columns, shown.columns):
                console.print(f"{c:>{label}}: {values[col][i]}", soft_wrap=True)
    else:
        table = Table(title=f"{title} ({len(frame)} rows)", title_justify="left")
        for c in columns[:fit]:
            table.add_column(c, no_wrap=True, justify="right" if numeric[c] else "left",
                             overflow="fold" if numeric[c] else "ellipsis",
                             max_width=None if numeric[c] else max(len(c), MAX_TEXT))
        for i in range(len(shown)):
            table.add_row(*(values[col][i] for col in shown.columns[:fit]))
        console.print(table)
        if fit < len(columns):
            console.print(f"{len(columns) - fit} more columns ({', '.join(columns[fit:])}): a wider terminal, "
                          "--columns, or --format csv", soft_wrap=True)
    if len(frame) > rows:
        console.print(f"... {len(frame) - rows} more rows: --rows N, or --format csv/parquet --output FILE",
                      soft_wrap=True)
    return out.getvalue()
