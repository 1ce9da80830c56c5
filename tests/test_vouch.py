"""The compiled core's check of .mat files (nardtools.notation.validate.vouched)
against the reference replay, in both games.

It may hand any file back to the replay; what it must never do is vouch for a
file the replay finds anything wrong in, or give other counts than the replay.
Checked on the whole corpus, on random matches of every named ruleset, and on
thousands of mutated copies of them."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardtools import ALL_ROLLS, find_ruleset, legal_plays
from nardtools.core import CORE
from nardtools.errors import InvalidPlayError
from nardtools.judge import _judge
from nardtools.notation import validate
from nardtools.notation.mat import export_mat, gnubg_play
from nardtools.notation.random_records import random_match
from nardtools.notation.replay import replay_match
from nardtools.outcome import classify, points_for
from nardtools.playout import random_game
from nardtools.rules import rulesets

from .corpus import CORPUS

pytestmark = pytest.mark.skipif(CORE is None, reason="the compiled core is not built (see test_core)")


def quick(data: bytes) -> tuple[int, int, int] | None:
    """The core's counts when it vouches for ``data``, else None."""
    report = validate.vouched("x.mat", data=data)
    return None if report is None else (report.games, report.complete_games, report.turns)

HERE = Path(__file__).resolve().parent

FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in (".mat", ".txt"))
needs_corpus = pytest.mark.skipif(not FILES, reason=f"no corpus at {CORPUS} (set NARDTOOLS_CORPUS)")


def reference(data: bytes) -> tuple[int, int, int] | None:
    """The replay's counts when it finds nothing at all to report, else None."""
    report = validate.replay_file("x.mat", data=data)
    if report.unreadable or report.problems:
        return None
    return report.games, report.complete_games, report.turns


def agrees(data: bytes) -> bool:
    """The compiled check vouches only for files the replay finds clean, with its counts."""
    counts = quick(data)
    return counts is None or counts == reference(data)


@needs_corpus
def test_vouches_only_for_clean_files_of_the_corpus_with_the_replays_counts():
    vouched = 0
    for path in FILES:
        data = path.read_bytes()
        counts = quick(data)
        if counts is not None:
            assert counts == reference(data), path.name
            vouched += 1
    # it serves every gnubg self-play file and nearly all of the real ones
    assert all(quick(p.read_bytes()) for p in FILES if p.parent.name == "gnubg-selfplay")
    assert vouched >= 115, vouched


FIXTURE = (HERE / "fixtures" / "gnubg-standard-5-90001.mat").read_bytes()


@pytest.mark.parametrize("old, new, later", [
    ("42: 6/4 8/4", "42: 6/2 8/4", 0),          # a wrong move
    ("32: 24/21 6/4", "31: 24/21 6/4", 0),      # wrong dice
    ("Wins 1 point", "Wins 2 points", 0),       # a wrong result
    ("Takes", "Drops", 1),                      # the game ends early: the next play is too many
    ("13/11 24/20", "13/11 24/20 xyz", 0),      # garbage in a play
    ("gnubg : 0                      root : 0", "gnubg : 4                      root : 0", 11),  # a double
    # in what is now the Crawford game
    (" 12) 41: 13/12 12/8              22: 7/5 7/5 6/4 5/3", " 12)  Doubles => 4                Takes", 0),  # the
    # cube belongs to the other side
])
def test_hands_back_each_corruption(old, new, later):
    assert old.encode() in FIXTURE
    data = FIXTURE.replace(old.encode(), new.encode(), 1)
    assert quick(data) is None
    line, _ = CORE.deferred()
    assert line == FIXTURE[:FIXTURE.index(old.encode())].count(b"\n") + 1 + later  # where it gave up
    assert reference(data) is None


def test_truncated_and_reordered_files_are_handed_back():
    lines = FIXTURE.split(b"\n")
    assert quick(FIXTURE) == reference(FIXTURE)
    assert quick(b"\n".join(lines[:40])) is None                     # a game without its end
    swapped = lines[:]
    swapped[30], swapped[31] = swapped[31], swapped[30]
    assert quick(b"\n".join(swapped)) is None                         # moves out of order


def test_rules_from_the_tags_are_the_replays():
    """The rules come from the file's tags, as for the replay: the core
    agrees with it under every one of them, or leaves the file to it."""
    header = b" 5 point match\n"
    for tag in (b'; [Variation "LongNardy"]', b'; [Ruleset "arena"]', b'; [CubeLimit "1"]', b'; [CubeLimit "2"]',
                b'; [RuleOptions "jacoby=yes"]', b'; [Crawford "Off"]', b'; [Ruleset "no-such-ruleset"]'):
        assert agrees(tag + b"\n" + FIXTURE), tag
    assert quick(b"; Set Pos=-a-a----E-C---eE---c-e----B-/1\n" + FIXTURE) is None   # board edits: the replay
    assert quick(b'; [CubeLimit "1024"]\n' + FIXTURE) == reference(FIXTURE)
    assert quick(b'[Game "long"]\n' + header) is None                # a native record


SCORE = b"gnubg : 0                      root : 0"


@pytest.mark.parametrize("data", [
    # a BOM, but not UTF-8: the reference reads Latin-1 and the BOM is text on line 1
    b"\xef\xbb\xbf; caf\xe9\n" + FIXTURE,
    # characters Python counts as white space (or digits) where ASCII has none
    FIXTURE.replace(SCORE, SCORE.replace(b": 0 ", b":\xc2\xa04 ")),
    FIXTURE.replace(SCORE, SCORE.replace(b"root", b"root\x1c")),
    FIXTURE.replace(b"  2) 42:", b"  2)\x1c42:"),
    b'; [\xc2\xa0Variation "LongNardy"]\n' + FIXTURE,
    # a score past a million, and colons in names
    FIXTURE.replace(SCORE, b"gnubg : 99999999 a : 4 root : 0"),
    FIXTURE.replace(SCORE, b"gn:ubg : 4    ro:ot : 0"),
])
def test_text_the_reference_reads_otherwise_is_handed_back_or_agrees(data):
    assert agrees(data)


@needs_corpus
def test_a_variation_tag_at_the_end_still_sets_the_start():
    nack = (CORPUS / "gnubg-selfplay" / "gnubg-nackgammon-5-90017.mat").read_bytes()
    moved = b"\n".join(line for line in nack.split(b"\n") if b"Variation" not in line) + b'\n; [Variation "NackGammon"]\n'
    assert quick(moved) == quick(nack) == reference(moved)


def _write_play(play, rng: random.Random) -> str:
    """A play as one of the producers writes it: a die per move (gnubg), chains
    with counts (nardtools), or moves run together (Jellyfish, `24/14`)."""
    style = rng.randrange(3)
    if style == 0:
        return gnubg_play(play).strip()
    text = str(play)
    return re.sub(r"/(\d+)(?=/)", "", text) if style == 2 else text


def _random_match(rng: random.Random, start: str) -> tuple[bytes, list]:
    """A one-game record of a random game, and its turns."""
    rules = find_ruleset("backgammon").rules.with_options({"start": start})
    turns = random_game(rules, rng)
    rows: list[list[str]] = []
    for t in turns:
        dice = f"{t.roll.high}{t.roll.low}" if rng.random() < 0.5 else f"{t.roll.low}{t.roll.high}"
        cell = f"{dice}: {_write_play(t.play, rng) if t.play.steps else ''}"
        if t.position.player == 0 or not rows:
            rows.append(["", ""])
        rows[-1][t.position.player] = cell
    winner = turns[-1].position.player
    points = points_for(classify(turns[-1].result.mover, rules), rules)
    lines = ([f'; [Variation "{start}"]'] if start != "backgammon" else []) + [
        " 7 point match", "", " Game 1", " alice : 0                          bob : 0"]
    lines += [f"{n:3d}) {left:<28} {right}".rstrip() for n, (left, right) in enumerate(rows, 1)]
    result = f"Wins {points} point{'s' if points > 1 else ''}"
    lines.append(("      " if winner == 0 else " " * 34) + result)
    return ("\n".join(lines) + "\n").encode(), turns


def _corrupt_play(data: bytes, turns: list, rng: random.Random) -> bytes:
    """One play of a generated record written otherwise: a move dropped, moved,
    or another play of the same roll."""
    lines = data.decode().split("\n")
    plays = [(i, m) for i, line in enumerate(lines) for m in re.finditer(r"(\d\d): ([^ ].*?)(?=\s{2,}|$)", line)]
    if not plays:
        return data
    i, m = rng.choice(plays)
    moves = m[2].split()
    kind = rng.randrange(4)
    if kind == 0 and moves:
        moves.pop(rng.randrange(len(moves)))
    elif kind == 1 and moves:
        j = rng.randrange(len(moves))
        moves[j] = re.sub(r"\d+", lambda x: str(max(0, int(x[0]) + rng.choice((-1, 1)))), moves[j], count=1)
    elif kind == 2:
        t = rng.choice(turns)
        others = legal_plays(t.position, t.roll, find_ruleset("backgammon").rules, first_turn=t.first_turn)
        moves = _write_play(others[rng.randrange(len(others))].play, rng).split()
    else:
        moves = moves + moves[:1]
    line = lines[i]
    lines[i] = line[:m.start(2)] + " ".join(moves) + line[m.end(2):]
    return "\n".join(lines).encode()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(["backgammon", "nackgammon", "hypergammon"]))
def test_random_games_are_vouched_for_and_corrupted_plays_agree(seed, start):
    rng = random.Random(seed)
    data, turns = _random_match(rng, start)
    assert quick(data) == reference(data) == (1, 1, len(turns))
    for _ in range(5):
        assert agrees(_corrupt_play(data, turns, rng))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(["backgammon", "nackgammon", "hypergammon"]))
def test_each_play_is_judged_as_check_play_judges_it(seed, start):
    """Every legal play, in every producer's writing, is accepted with the
    engine's result; a play written wrong is accepted only if the reference
    accepts it too, with the same result."""
    rng = random.Random(seed)
    rules = find_ruleset("backgammon").rules.with_options({"start": start})
    for t in rng.sample(random_game(rules, rng), 8):
        roll = rng.choice(ALL_ROLLS)
        for legal in legal_plays(t.position, roll, rules):
            for style in range(3):
                text = _write_play(legal.play, random.Random(style * 7))
                judged = _judge(t.position, roll, text, rules, None)
                assert judged.legal and judged.result == legal.result, (str(t.position), str(roll), text)
            moves = str(legal.play).split()
            wrong = [" ".join(moves[:-1]), " ".join(moves + moves[:1]),
                     re.sub(r"\d+", lambda m: str(int(m[0]) - 1), str(legal.play), count=1)]
            for text in wrong:
                try:
                    judged = _judge(t.position, roll, text, rules, None)
                except InvalidPlayError:
                    continue
                if judged.legal:
                    j = _judge(t.position, roll, text, rules, None, core=False)
                    assert j.legal and j.result == judged.result, (str(t.position), str(roll), text)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from([rs.name for rs in rulesets()
                                                    if rs.rules.remainder != "opponent"]))
def test_random_matches_of_every_ruleset_are_vouched_for(seed, ruleset):
    """A .mat record of a random match of any ruleset (Long Nardy included) is
    vouched for with the replay's counts; corrupted, it agrees or is handed back."""
    rng = random.Random(seed)
    record = random_match(find_ruleset(ruleset), 3, seed)
    data = export_mat(replay_match(record, rules=ruleset)).encode()
    counts = reference(data)
    assert counts is not None
    # a game whose opening tie doubled the cube is left to the reference
    assert quick(data) == (None if b"AutoDoubles" in data else counts)
    for _ in range(3):
        assert agrees(_mutate(data, rng))


def _mutate(data: bytes, rng: random.Random) -> bytes:
    """One random corruption of a record, of the kinds real files have."""
    lines = data.decode("latin-1").split("\n")
    i = rng.randrange(len(lines))
    line = lines[i]
    kind = rng.randrange(9)
    if kind == 0:  # another die
        lines[i] = re.sub(r"\b([1-6])([1-6]):", lambda m: f"{rng.randint(1, 6)}{m[2]}:", line, count=1)
    elif kind == 1:  # another point in a move
        nums = list(re.finditer(r"\d+", line))
        if nums:
            m = rng.choice(nums)
            lines[i] = line[:m.start()] + str(max(0, int(m[0]) + rng.choice((-2, -1, 1, 2)))) + line[m.end():]
    elif kind == 2:
        del lines[i]
    elif kind == 3:
        lines.insert(i, line)
    elif kind == 4:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 5:  # another cube action or result
        for a, b in (("Takes", "Drops"), ("Drops", "Takes"), ("Wins 1", "Wins 2"), ("Wins 2", "Wins 1"),
                     ("=> 2", "=> 4"), ("Doubles", "Takes")):
            if a in line:
                lines[i] = line.replace(a, b, 1)
                break
    elif kind == 6:  # a move dropped or a hit mark moved
        lines[i] = re.sub(r" \d+/\d+\*?", "", line, count=1) if rng.random() < 0.5 else line.replace("*", "", 1)
    elif kind == 7:  # a cell moved to the other column
        lines[i] = line.replace("   ", "", 1) if rng.random() < 0.5 else line.replace(")", ")      ", 1)
    else:  # rolled, then resigned
        lines[i] = re.sub(r"([1-6][1-6]): [^ ]+( [^ ]+)*", r"\1: ????", line, count=1)
    return "\n".join(lines).encode("latin-1")


@needs_corpus
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_mutated_corpus_files(seed, mutations):
    rng = random.Random(seed)
    data = rng.choice(FILES).read_bytes()
    for _ in range(mutations):
        data = _mutate(data, rng)
    assert agrees(data)


@needs_corpus
def test_validate_gives_the_same_reports_with_and_without_the_compiled_check(monkeypatch):
    files = [str(p) for p in FILES]
    fast = [r.as_dict() for r in validate.validate_paths(files, jobs=2)]
    monkeypatch.setattr(validate, "compiled", lambda: None)
    slow = [r.as_dict() for r in validate.validate_paths(files, jobs=1)]
    assert fast == slow


def test_the_reference_engine_switch_turns_off_every_compiled_path_of_the_rules():
    """Issue 22: reference_engine() was honoured by the engine alone; validate's
    compiled check, the stats path, playouts and self-play kept the core."""
    from nardtools.analysis.selfplay import successors
    from nardtools.analysis.stats import core_file_stats
    from nardtools.core import compiled, reference_engine
    from nardtools.playout import playouts

    data = FIXTURE
    assert compiled() is not None and validate.vouched("x.mat", data=data) is not None
    assert core_file_stats("x.mat", data) is not None
    board = __import__("nardtools.analysis.selfplay", fromlist=["start_board"]).start_board(find_ruleset("long"))
    fast_rows = successors(find_ruleset("long").rules, board, (6, 5))
    with reference_engine():
        assert compiled() is None and validate.vouched("x.mat", data=data) is None
        assert core_file_stats("x.mat", data) is None
        slow_games = playouts(find_ruleset("backgammon"), 3, seed=1)  # (the reference plays them)
        assert (successors(find_ruleset("long").rules, board, (6, 5)) == fast_rows).all()  # the same, by the reference
    assert compiled() is not None
    assert [(g.winner, g.points, g.turns) for g in playouts(find_ruleset("backgammon"), 3, seed=1)] == \
        [(g.winner, g.points, g.turns) for g in slow_games]


# ---------------------------------------------------------------------------
# The fast path under every named ruleset, every option value, lenient mode and
# a given encoding (issue 22): whatever the core vouches for, the replay under
# the same rules finds clean, with the same counts.

def _agrees_under(data: bytes, rules: str | None, options: dict[str, str], lenient: bool,
                  encoding: str | None) -> bool | None:
    """None when the core hands the file back; else whether it agrees with the replay."""
    quick_report = validate.vouched("x.mat", rules, options, lenient, encoding, data=data)
    if quick_report is None:
        return None
    report = validate.replay_file("x.mat", rules, options, lenient, encoding, data=data)
    clean = not report.unreadable and not report.problems
    return clean and (quick_report.games, quick_report.complete_games, quick_report.turns) == \
        (report.games, report.complete_games, report.turns) and quick_report.encoding == report.encoding


LONG_OPTIONS = [{}] + [{name: value} for name in ("head", "block", "block-check", "block-path")
                       for value in __import__("nardtools.rules", fromlist=["Rules"]).Rules.option_doc(name)[2]]
ENCODINGS = [None, "utf-8", "cp1251", "koi8-r", "latin-1", "utf-16"]


@pytest.mark.parametrize("ruleset", [rs.name for rs in rulesets() if rs.rules.is_long and rs.rules.remainder != "opponent"])
def test_the_core_vouches_under_every_long_nardy_ruleset_and_option(ruleset):
    data = export_mat(replay_match(random_match(find_ruleset("long"), 5, 11), rules="long")).encode()
    served = 0
    for options in LONG_OPTIONS:
        for lenient in (False, True):
            verdict = _agrees_under(data, ruleset, options, lenient, None)
            assert verdict is not False, (ruleset, options, lenient)
            served += verdict is True
    for encoding in ENCODINGS:
        verdict = _agrees_under(data, ruleset, {}, False, encoding)
        assert verdict is not False, (ruleset, encoding)
        assert verdict is None if encoding == "utf-16" else True  # UTF-16 reads ASCII otherwise
    if ruleset == "long":
        assert served == 2 * len(LONG_OPTIONS) - 2  # all but head=none, under which this record has illegal plays
    assert served > 0


@needs_corpus
@pytest.mark.parametrize("ruleset", [rs.name for rs in rulesets() if not rs.rules.is_long
                                     and rs.rules.remainder != "opponent"])
def test_the_core_vouches_for_the_corpus_under_every_backgammon_ruleset(ruleset):
    served = 0
    for path in FILES[::8]:
        data = path.read_bytes()
        for lenient, encoding in ((False, None), (True, None), (False, "latin-1")):
            verdict = _agrees_under(data, ruleset, {}, lenient, encoding)
            assert verdict is not False, (path.name, ruleset, lenient, encoding)
            served += verdict is True
    assert served > 0 or ruleset in ("hypergammon", "nackgammon", "dutch")  # another start: every file differs


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from([rs.name for rs in rulesets() if rs.rules.is_long
                                                    and rs.rules.remainder != "opponent"]),
       st.sampled_from(LONG_OPTIONS), st.booleans())
def test_mutated_long_nardy_records_agree_under_any_rules(seed, ruleset, options, lenient):
    rng = random.Random(seed)
    data = export_mat(replay_match(random_match(find_ruleset(ruleset), 3, seed), rules=ruleset)).encode()
    for _ in range(3):
        assert _agrees_under(_mutate(data, rng), ruleset, options, lenient, None) is not False


def test_files_read_by_the_core_are_their_bytes_and_tags(tmp_path):
    """validate's threads have the core read their files (the interpreter
    free): each file's bytes and mat_tags' tags, or None where the reference
    must read it: missing, a folder, over the size limit, tags in doubt."""
    good = tmp_path / "a.mat"
    good.write_bytes(FIXTURE)
    doubtful = tmp_path / "b.mat"
    doubtful.write_bytes(b"; [Player 1 \"X\xe9\"]\n" + FIXTURE)  # (not ASCII in a tag line)
    empty = tmp_path / "c.mat"
    empty.write_bytes(b"")
    paths = [str(good), str(tmp_path / "missing.mat"), str(tmp_path), str(doubtful), str(empty)]
    got = CORE.mat_read_files(paths, 1 << 20)
    assert got[0] == (FIXTURE, CORE.mat_tags(FIXTURE)) and got[0][1]
    assert got[1] is None and got[2] is None and got[3] is None and CORE.mat_tags(doubtful.read_bytes()) is None
    assert got[4] == (b"", [])
    assert CORE.mat_read_files([str(good)], len(FIXTURE) - 1) == [None]
    assert CORE.mat_read_files([str(good)], len(FIXTURE)) == [(FIXTURE, got[0][1])]
    with pytest.raises(TypeError):
        CORE.mat_read_files([str(good)], "big")
    # and vouched_many reads them so: the same reports as with the bytes given
    from_paths = validate.vouched_many([(str(good), None), (str(tmp_path / "missing.mat"), None)])
    assert from_paths[1] is None and from_paths[0] == validate.vouched(str(good), data=FIXTURE)
