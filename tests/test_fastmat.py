"""The compiled .mat check (nardtools._fastmat) against the reference replay.

It may hand any file back to the replay; what it must never do is vouch for a
file the replay finds anything wrong in, or give other counts than the replay.
Checked on the whole corpus and on thousands of mutated copies of it."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardtools import NardtoolsError
from nardtools.notation import validate
from nardtools.notation.mat import read_mat
from nardtools.notation.replay import replay_match
from nardtools.notation.sniff import decode

fastmat = pytest.importorskip("nardtools._fastmat", reason="built without a C compiler")

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "corpus"
FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in (".mat", ".txt"))
needs_corpus = pytest.mark.skipif(not FILES, reason="../shared/corpus not found")


def reference(data: bytes) -> tuple[int, int, int] | None:
    """The replay's counts when it finds nothing at all to report, else None."""
    text = decode(data)
    if "point match" not in text.lower():
        return None
    try:
        replayed = replay_match(read_mat(text, "x.mat"))
    except NardtoolsError:  # a reader error: nothing the compiled check could vouch for
        return None
    if replayed.problems:
        return None
    return len(replayed.games), sum(g.complete for g in replayed.games), replayed.turns


def agrees(data: bytes) -> bool:
    """The compiled check vouches only for files the replay finds clean, with its counts."""
    quick = fastmat.vouch(data)
    return quick is None or quick == reference(data)


@needs_corpus
def test_vouches_only_for_clean_files_of_the_corpus_with_the_replays_counts():
    vouched = 0
    for path in FILES:
        data = path.read_bytes()
        quick = fastmat.vouch(data)
        if quick is not None:
            assert quick == reference(data), path.name
            vouched += 1
    # it serves every gnubg self-play file and nearly all of the real ones
    assert all(fastmat.vouch(p.read_bytes()) for p in FILES if p.parent.name == "gnubg-selfplay")
    assert vouched >= 105, vouched


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
    assert fastmat.vouch(data) is None
    line, _ = fastmat.deferred()
    assert line == FIXTURE[:FIXTURE.index(old.encode())].count(b"\n") + 1 + later  # where it gave up
    assert reference(data) is None


def test_truncated_and_reordered_files_are_handed_back():
    lines = FIXTURE.split(b"\n")
    assert fastmat.vouch(FIXTURE) == reference(FIXTURE)
    assert fastmat.vouch(b"\n".join(lines[:40])) is None                     # a game without its end
    swapped = lines[:]
    swapped[30], swapped[31] = swapped[31], swapped[30]
    assert fastmat.vouch(b"\n".join(swapped)) is None                         # moves out of order


def test_rules_that_change_the_game_are_left_to_the_replay():
    header = b" 5 point match\n"
    for tag in (b'; [Variation "LongNardy"]', b'; [Ruleset "arena"]', b'; [CubeLimit "1"]',
                b'; [RuleOptions "jacoby=yes"]', b"; Set Pos=-a-a----E-C---eE---c-e----B-/1"):
        assert fastmat.vouch(tag + b"\n" + FIXTURE) is None, tag
    assert fastmat.vouch(b'; [CubeLimit "1024"]\n' + FIXTURE) == reference(FIXTURE)
    assert fastmat.vouch(b'[Game "long"]\n' + header) is None                # a native record


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
    assert fastmat.vouch(moved) == fastmat.vouch(nack) == reference(moved)


def _mutate(data: bytes, rng: random.Random) -> bytes:
    """One random corruption of a record, of the kinds real files have."""
    lines = data.decode("latin-1").split("\n")
    i = rng.randrange(len(lines))
    line = lines[i]
    kind = rng.randrange(8)
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
    else:  # a cell moved to the other column
        lines[i] = line.replace("   ", "", 1) if rng.random() < 0.5 else line.replace(")", ")      ", 1)
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
    monkeypatch.setattr(validate, "_vouch", None)
    slow = [r.as_dict() for r in validate.validate_paths(files, jobs=1)]
    assert fast == slow
