"""Mutations of records and positions, for the fuzz tests (``test_fuzz.py``)
and the offline fuzz run (``benchmarks/fuzz.py``).  Every mutant comes from
a seed, so a failure can be replayed: ``mutant(kind, seed)``.

The mutations are the ones that found bugs before: bytes flipped, inserted
or deleted; lines deleted, duplicated, swapped or made very long; numbers made
huge or negative; digits, dice and points changed; markup (brackets, braces,
quotes, parentheses) inserted; the text re-encoded.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from pathlib import Path

from .corpus import CORPUS

ROOT = Path(__file__).resolve().parent.parent

_NUMBER = re.compile(rb"\d+")
_MARKUP = [b"[", b"]", b"{", b"}", b"(", b")", b'"', b"\\", b"/", b"*", b":", b";", b"#", b"=>",
           b"<!--<script>", b"\xef\xbb\xbf", b"\r", b"\t", b"\0", b"\xff", b"\xc3", b" point match",
           b"Game 1", b"Wins 1 point", b"Doubles => 2", b"Takes", b"Drops", b"????", b"Cannot Move",
           b'[Variation "NackGammon"', b'; [Variation "NackGammon"]', b'; [CubeLimit "16"]',
           b"Illegal play (0;0;0;0;0;a;b;0;0;0;1;0;0;" + b"0;" * 24 + b"0;0;0)", b"; Set Pos=",
           b"25/", b"/0", b"bar/", b"/off", b"(2)", b"(4)", b"X double", b"O take", b"+55:", b"= \"",
           b"1.", b"...", b"!!", b"?!", b" wins 3 points (koks)",
           b"(;", b"GM[6]", b"GM[106]", b";W[", b";B[double]", b"\\]", b"AE[a:y]", b"AW[y]", b"PL[B]DI[6",
           b"RE[B+2R]", b"MI[length:99999999999]", b"A[0][aggk E ver 3 ", b"[%sgf A[1]]"]


@lru_cache(None)
def seeds(fmt: str) -> tuple[bytes, ...]:
    """The records mutants are made from: examples and a sample of the corpus."""
    if fmt == "nrd":
        files = sorted(ROOT.glob("examples/**/*.nrd"))
    elif fmt == "sgf":
        files = sorted(ROOT.glob("tests/fixtures/sgf/*.sgf"))
    else:
        files = sorted(ROOT.glob("examples/**/*.mat")) + sorted(ROOT.glob("tests/fixtures/*.mat"))
        if CORPUS.is_dir():
            corpus = sorted(CORPUS.rglob("*.mat")) + sorted(CORPUS.rglob("*.txt"))
            files += corpus[::7]
    return tuple(f.read_bytes() for f in files if f.name != "README.md")


POSITION_SEEDS = (
    b"backgammon X 24:2,13:5,8:3,6:5 / 24:2,13:5,8:3,6:5; dice 31; cube 2 O; score 3-5/7; crawford",
    b"long X 24:13,19:1,18:1 / 24:14,13:1; dice 64",
    b"long O 12:5,3:10 / 11:15",
    b"backgammon X bar:1,13:14 / 6:2,5:2,1:11",
    b"4HPwATDgc/ABMA:MIEFAAAAAAAA",
    b"long:AACA/z8AAID/Pw",
    b"XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10",
    b"XGID=-CDB------------------cdc-:1:-1:1:52:3:1:0:5:10",
)


def _mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    op = rng.randrange(12)
    n = len(data)
    i = rng.randrange(n + 1)
    if op == 0 and n:  # flip a byte
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
    if op == 1:  # insert markup
        return data[:i] + rng.choice(_MARKUP) + data[i:]
    if op == 2 and n:  # delete a run
        return data[:i] + data[i + rng.randrange(1, 40):]
    if op == 3:  # a huge or negative number
        m = list(_NUMBER.finditer(data))
        if m:
            x = rng.choice(m)
            new = rng.choice([b"9" * rng.choice([10, 20, 5000]), b"-1", b"0", b"00", b"99", b"7", b"65536"])
            return data[:x.start()] + new + data[x.end():]
    if op == 4:  # a digit changed (dice, points, scores)
        m = list(_NUMBER.finditer(data))
        if m:
            x = rng.choice(m)
            j = rng.randrange(x.start(), x.end())
            return data[:j] + bytes([48 + rng.randrange(10)]) + data[j + 1:]
    lines = data.split(b"\n")
    k = rng.randrange(len(lines))
    if op == 5:  # delete a line
        del lines[k]
    elif op == 6:  # duplicate a line
        lines.insert(k, lines[k])
    elif op == 7:  # swap two lines
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    elif op == 8:  # a very long line
        piece = rng.choice([b"24/18 ", b"64: ", b"[", b"{", b"(", b"1", b" ", b'"', b"Wins "])
        lines.insert(k, lines[k] + piece * rng.choice([100, 2000, 20000]))
    elif op == 9:  # truncate
        return data[:i]
    elif op == 10:  # re-encode
        codec = rng.choice(["utf-16", "cp1251", "koi8-r", "latin-1"])
        try:
            return data.decode("utf-8").encode(codec, errors="replace")
        except UnicodeDecodeError:
            return data
    else:  # insert a line from elsewhere
        lines.insert(k, lines[rng.randrange(len(lines))])
    return b"\n".join(lines)


def mutant(fmt: str, seed: int) -> bytes:
    """Mutant number ``seed`` of format ``fmt``: ``mat``, ``nrd``, ``sgf`` or ``position``."""
    rng = random.Random(f"{fmt}:{seed}")
    pool = POSITION_SEEDS if fmt == "position" else seeds(fmt)
    data = rng.choice(pool)
    for _ in range(rng.choice([1, 1, 1, 2, 3, 5])):
        data = _mutate_bytes(data, rng)
    return data


def exercise(fmt: str, data: bytes) -> str:
    """Put one mutant through everything that reads it; return what came of
    it (``clean``, ``problems``, ``unreadable``, ``refused``).  An exception
    other than nardtools' own, or the compiled check disagreeing with the
    replay, is raised: that is a bug."""
    from nardtools.errors import NardtoolsError

    if fmt == "position":
        return _exercise_position(data)
    from nardtools.notation.convert import convert
    from nardtools.notation.reading import read_record
    from nardtools.notation.replay import replay_match
    from nardtools.notation.validate import replay_file, vouched

    path = f"mutant.{fmt}"
    report = replay_file(path, data=data)
    quick = vouched(path, data=data)
    if quick is not None:
        same = (quick.games, quick.complete_games, quick.turns) == (report.games, report.complete_games, report.turns)
        if not same or report.problems or report.unreadable:
            raise AssertionError(f"the compiled check vouched for a file the replay reads otherwise: "
                                 f"{quick.games, quick.complete_games, quick.turns} against "
                                 f"{report.games, report.complete_games, report.turns}, {report.problems[:2]}")
    if report.unreadable:
        return "unreadable"
    try:
        match = replay_match(read_record(path, data), lenient=True)
        for target in ("mat", "nrd", "sgf"):
            try:
                convert(match, target)
            except NardtoolsError:
                pass
        if match.games and match.games[0].turns:
            match.setup_at(match.games[0].record.number, match.games[0].turns[-1].action.number)
    except NardtoolsError:
        return "refused"
    return "problems" if report.problems else "clean"


def _exercise_position(data: bytes) -> str:
    from nardtools.analysis.reports import pip_report
    from nardtools.dice import ALL_ROLLS
    from nardtools.engine import legal_plays
    from nardtools.errors import NardtoolsError
    from nardtools.notation.ids import parse_setup, xgid
    from nardtools.position import GameKind
    from nardtools.teaching.diagram import diagram

    text = data.decode("utf-8", errors="replace")
    try:
        setup = parse_setup(text)
    except NardtoolsError:
        return "refused"
    position = setup.position
    diagram(setup)
    pip_report(setup, epc=False)
    again = parse_setup(str(setup))  # the text keeps the position and the match state
    fields = ("position", "dice", "cube", "cube_owner", "match_length", "score", "crawford", "double_offered")
    assert [getattr(again, f) for f in fields] == [getattr(setup, f) for f in fields], str(setup)
    if position.kind is GameKind.BACKGAMMON:
        try:
            xgid(setup)
        except NardtoolsError:
            pass  # more than 16 checkers on a point do not fit an XGID
    if not position.is_finished():
        legal_plays(position, ALL_ROLLS[len(data) % 21])
    return "clean"
