"""Where rows go: files written as they come (:class:`TableSink`: CSV,
Parquet, JSON lines), running group-bys (:class:`GroupSink`), pandas and
Arrow tables, JSON."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import IO, Any, Sequence

from ...errors import AnalysisError
from .schema import _IDENTIFIERS, JSON_DIGITS, SCHEMAS, TurnColumns, check_columns


class _StreamedFile:
    """A table written to ``path`` as it comes (csv, json or parquet) through
    a temporary file beside it: nothing appears at ``path`` until
    :meth:`_commit`, and :meth:`abort` leaves nothing behind."""

    def __init__(self, path: str | Path, fmt: str, table: str, columns: Sequence[str] | None = None) -> None:
        self.path, self.fmt, self.table = Path(path), fmt, table
        self.columns = list(columns or SCHEMAS[table])
        self.tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self.rows = 0
        self._writer: Any = None    # Parquet's
        self._file: IO[str] | None = None    # CSV's and JSON's

    def _commit(self, json_end: str) -> None:
        """Close what was written (a JSON array ended with ``json_end``) and put it at ``path``."""
        if self._writer is not None:
            self._writer.close()
        if self._file is not None:
            if self.fmt == "json":
                self._file.write(json_end)
            self._file.close()
        os.chmod(self.tmp, 0o644)
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._file is not None:
            self._file.close()
        self.tmp.unlink(missing_ok=True)


class TableSink(_StreamedFile):
    """Rows of one table streamed to a file (csv, json or parquet), written
    atomically: nothing appears at ``path`` until :meth:`close`."""

    def __init__(self, path: str | Path, fmt: str, table: str, columns: Sequence[str] | None = None) -> None:
        super().__init__(path, fmt, table, columns)
        self._pending: list[TurnColumns] = []  # Parquet: rows gathered into row groups of GROUP_ROWS
        self._pending_rows = 0

    #: Rows of one Parquet row group (the per-write cost of pandas and pyarrow is paid once for them).
    GROUP_ROWS = 100_000

    def write(self, turns: TurnColumns) -> None:
        if not len(turns) and (self.rows or self._pending):
            return
        if self.fmt == "parquet":
            self._pending.append(turns)
            self._pending_rows += len(turns)  # (a sum over the pending parts each time was quadratic)
            if self._pending_rows >= self.GROUP_ROWS:
                self._flush()
        else:
            rows = turns.rows()
            if self._file is None:
                self._file = open(self.tmp, "w", encoding="utf-8", newline="")  # noqa: SIM115 - open across writes
                if self.fmt == "csv":
                    self._file.write(",".join(self.columns) + "\n")
                else:
                    self._file.write("[")
            for row in rows:
                if self.fmt == "csv":
                    self._file.write(",".join(_csv(row.get(c)) for c in self.columns) + "\n")
                else:
                    self._file.write(("," if self.rows else "") + "\n" + json.dumps(
                        {c: _json_value(row.get(c)) for c in self.columns}, ensure_ascii=False))
                self.rows += 1

    def _flush(self) -> None:
        import pyarrow.parquet as pq

        if not self._pending:
            return
        turns = TurnColumns.concat(self._pending)
        self._pending, self._pending_rows = [], 0
        table = turns.arrow(self.columns)
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.tmp, table.schema)
        self._writer.write_table(table)
        self.rows += len(turns)

    def close(self) -> None:
        if self._writer is None and self._file is None and not self._pending:
            self.write(TurnColumns.from_rows([]))  # an empty table still gets its header
        self._flush()
        self._commit("\n]\n")


class RowSink(_StreamedFile):
    """Rows of the games table streamed to a file (csv, json or parquet) as
    they come, in chunks of :attr:`CHUNK_ROWS`, each written as the table
    held in memory would be (the same text, the same Parquet columns), and
    atomically: nothing appears at ``path`` until :meth:`close`."""

    #: Rows held before a chunk is written.
    CHUNK_ROWS = 5_000

    def __init__(self, path: str | Path, fmt: str, table: str, columns: Sequence[str] | None = None) -> None:
        super().__init__(path, fmt, table, columns)
        self._pending: list[dict[str, Any]] = []

    def write(self, rows: list[dict[str, Any]]) -> None:
        self._pending.extend(rows)
        if len(self._pending) >= self.CHUNK_ROWS:
            self._flush()

    def _flush(self) -> None:
        frame = to_frame(self._pending, self.table)[self.columns]
        first = self._file is None and self._writer is None
        self.rows += len(self._pending)
        self._pending = []
        if self.fmt == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            chunk = pa.Table.from_pandas(frame, preserve_index=False)
            if self._writer is None:
                self._writer = pq.ParquetWriter(self.tmp, chunk.schema)
            self._writer.write_table(chunk)
            return
        if self._file is None:
            self._file = open(self.tmp, "w", encoding="utf-8", newline="")  # noqa: SIM115 - open across writes
        if self.fmt == "csv":
            self._file.write(frame.to_csv(index=False, header=first))
        elif len(frame):  # JSON: one array over the chunks (frame_json's layout)
            inner = frame_json(frame)[len("[\n"):-len("\n]\n")]
            self._file.write(("[\n" if first else ",\n") + inner)
        elif first:
            self._file.write("[")

    def close(self) -> None:
        if self._pending or (self._file is None and self._writer is None):
            self._flush()  # (an empty table still gets its header)
        self._commit("]\n" if self.rows == 0 else "\n]\n")


class GroupSink:
    """Rows of one table folded into groups as they arrive: per group the
    number of rows and the sums behind :func:`group`'s means, so memory grows
    with the number of groups, not of rows."""

    def __init__(self, table: str, keys: Sequence[str]) -> None:
        check_columns(table, keys)
        self.table, self.keys = table, list(keys)
        self.measured = [c for c, t in SCHEMAS[table].items()
                         if c not in keys and c not in _IDENTIFIERS and t in ("int64", "Int64", "float64", "boolean")]
        self.groups: dict[tuple[Any, ...], list[float]] = {}
        self.rows = 0

    def write(self, turns: TurnColumns) -> None:
        width = len(self.measured)
        for row in turns.rows():
            acc = self.groups.setdefault(tuple(row.get(k) for k in self.keys), [0.0] * (1 + 2 * width))
            acc[0] += 1
            for i, column in enumerate(self.measured):
                value = row.get(column)
                if value is not None and not (isinstance(value, float) and math.isnan(value)):
                    acc[1 + i] += float(value)
                    acc[1 + width + i] += 1
        self.rows += len(turns)

    def frame(self) -> Any:
        """The groups as :func:`group` gives them: keys, ``rows``, ``mean_<column>``."""
        import pandas as pd

        width = len(self.measured)
        records = []
        for key, acc in self.groups.items():
            record: dict[str, Any] = dict(zip(self.keys, key))
            record["rows"] = int(acc[0])
            for i, column in enumerate(self.measured):
                n = acc[1 + width + i]
                record[f"mean_{column}"] = acc[1 + i] / n if n else math.nan
            records.append(record)
        columns = self.keys + ["rows"] + [f"mean_{c}" for c in self.measured]
        frame = pd.DataFrame(records, columns=columns)
        frame = frame.astype({k: SCHEMAS[self.table][k] for k in self.keys})
        return frame.sort_values(self.keys, na_position="last").reset_index(drop=True)


def _csv(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if any(ch in text for ch in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def to_arrow(rows: list[dict[str, Any]], table: str, columns: Sequence[str] | None = None) -> Any:
    """Rows as a pyarrow Table with the documented types, carrying pandas'
    metadata so that ``pandas.read_parquet`` gives the documented dtypes back."""
    import pyarrow as pa

    frame = to_frame(rows, table)
    return pa.Table.from_pandas(frame[list(columns)] if columns else frame, preserve_index=False)


def _json_value(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, JSON_DIGITS)
    return value


def frame_json(frame: Any) -> str:
    """A table as a JSON array of objects: booleans as booleans, missing values
    as null, floats to :data:`JSON_DIGITS` places."""
    records = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
    return json.dumps([{k: _json_value(v) for k, v in r.items()} for r in records], ensure_ascii=False,
                      indent=1) + "\n"


def group(frame: Any, keys: Sequence[str]) -> Any:
    """Rows grouped by ``keys``: the number of rows, and the mean of every
    numeric or boolean column (a rate, for booleans).  Raises KeyError naming
    an unknown column."""
    missing = [k for k in keys if k not in frame.columns]
    if missing:
        raise AnalysisError(f"no column {missing[0]!r}; columns: {', '.join(frame.columns)}")
    numeric = [c for c in frame.columns if c not in keys and c not in _IDENTIFIERS
               and (frame[c].dtype.kind in "iufb" or str(frame[c].dtype) in ("Int64", "boolean"))]
    grouped = frame.groupby(list(keys), dropna=False, observed=True)
    out = grouped.size().rename("rows").to_frame()
    if numeric:
        means = grouped[numeric].mean(numeric_only=False).astype("float64")
        out = out.join(means.add_prefix("mean_"))
    return out.reset_index()


def to_frame(rows: list[dict[str, Any]], table: str) -> Any:
    import pandas as pd

    columns = SCHEMAS[table]
    frame = pd.DataFrame({c: [r.get(c) for r in rows] for c in columns}, columns=list(columns))
    return frame.astype(columns)


