"""Every writer holds hostile names and tags (issue 60): a record written in
any format with quotes, backslashes, line breaks, braces, brackets, colons or
terminal escapes in its players' names and tags reads back, with the same
games and plays, and the names as the format can hold them: native exactly,
SGF but for a carriage return read as a line break, ``.mat`` as
:func:`~nardtools.notation.mat.mat_name` documents (the format has no escapes)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from nardtools.notation.convert import convert
from nardtools.notation.mat import mat_name
from nardtools.notation.reading import read_record
from nardtools.notation.replay import replay_match

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SOURCES = [EXAMPLES / "backgammon" / "backgammon-5pt-seed6.mat", EXAMPLES / "long-nardy" / "arena-3pt-seed6.nrd"]
HOSTILE = st.text(alphabet=st.sampled_from(list('aZ 09"\\\n\r\t{}[]():;,*?!=/-#\x1bé Ж')), min_size=1, max_size=40)


def _plays(replayed):  # type: ignore[no-untyped-def]
    return [[str(t.play) for t in g.turns] for g in replayed.games]


def _hostile(source: Path, names: tuple[str, str], tag: str):  # type: ignore[no-untyped-def]
    record = read_record(source)
    record.games = record.games[:2]  # (the first games are enough, and quick)
    record.players = names
    record.tags = [*record.tags, ("Event", tag)]
    for game in record.games:
        game.tags = [*((k, {"X": names[0], "O": names[1]}.get(k, v)) for k, v in game.tags), ("Event", tag)]
    return replay_match(dataclasses.replace(record))


@settings(max_examples=30, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=HOSTILE, second=HOSTILE, tag=HOSTILE)
def test_hostile_names_and_tags_read_back_in_every_format(tmp_path: Path, first: str, second: str, tag: str) -> None:
    for source in SOURCES:
        original = _hostile(source, (first, second), tag)
        assert not original.errors
        for fmt in ("nrd", "mat", "sgf"):
            text, _ = convert(original, fmt)
            path = tmp_path / f"hostile.{fmt}"
            path.write_text(text, encoding="utf-8")
            back = replay_match(read_record(path))
            assert not back.errors, (fmt, [str(p) for p in back.errors][:3])
            assert _plays(back) == _plays(original), fmt
            if fmt == "mat":
                assert back.record.players == (mat_name(first), mat_name(second)), fmt
            elif fmt == "sgf":  # SGF text reads a lone carriage return as a line break
                assert back.record.players == (_lines(first), _lines(second)), fmt
            else:
                assert back.record.players == (first, second), fmt
                assert dict(back.games[0].record.tags)["Event"] == tag


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
