"""Playing against the evaluator with a tutor (issue 25): scripted games to
the end through standard input, the saved records validated and analysed, and
the tutor's warning on a planted bad play."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nardtools import find_ruleset, legal_plays
from nardtools.errors import NardtoolsError
from nardtools.notation.ids import parse_setup
from nardtools.teaching.tutor import Session, SessionError


def _answer(line: str, rules: str, worst: bool) -> str | None:
    """What a script types after one line of ``play``'s output (None: nothing)."""
    if line.startswith("position: "):
        setup = parse_setup(line[len("position: "):])
        assert setup.dice is not None
        from nardtools import Roll

        plays = legal_plays(setup.position, Roll(*setup.dice), find_ruleset(rules).rules)
        return str(plays[-1 if worst else 0].play) or "-"
    if line.startswith("tutor: "):
        return "keep"
    if line.startswith("cube: you may double"):
        return "roll"
    if line.endswith("take or pass"):
        return "take"
    return None


def _script(args: list[str], rules: str, tmp_path: Path, worst: bool = True) -> tuple[list[str], Path]:
    """Run ``nardtools play`` as a script would, answering each prompt."""
    out = tmp_path / "game.nrd"
    proc = subprocess.Popen([sys.executable, "-m", "nardtools", "play", "--rules", rules, "-o", str(out), *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    seen: list[str] = []
    first = worst  # the first choices bad (so that the tutor speaks), then the engine's first plays
    for line in proc.stdout:
        line = line.rstrip("\n")
        seen.append(line)
        reply = _answer(line, rules, first and len(seen) < 60)
        if reply is not None:
            proc.stdin.write(reply + "\n")
            proc.stdin.flush()
        if line.startswith("saved: "):
            break
    proc.stdin.close()
    assert proc.wait(timeout=300) == 0, proc.stderr.read() if proc.stderr else ""
    return seen, out


def _validate_and_analyse(path: Path) -> dict[str, object]:
    run = [sys.executable, "-m", "nardtools"]
    checked = subprocess.run([*run, "validate", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    analysed = subprocess.run([*run, "analyse", str(path), "--format", "json"], capture_output=True, text=True)
    assert analysed.returncode == 0, analysed.stderr
    return json.loads(analysed.stdout)  # type: ignore[no-any-return]


def test_a_scripted_long_nardy_game_is_played_to_the_end_and_its_record_reads_back(tmp_path: Path) -> None:
    seen, path = _script(["--seed", "3", "--name", "learner"], "long", tmp_path)
    assert any(line.startswith("position: long ") for line in seen)
    assert any(line.startswith("bot plays: ") for line in seen)
    assert any(line.startswith("game over: ") for line in seen) and "session over" in seen
    warned = [line for line in seen if line.startswith("tutor: ")]
    assert warned and all("best " in w and "lost " in w for w in warned)
    assert any(line.startswith("summary: ") for line in seen)
    text = path.read_text(encoding="utf-8")
    assert '[X "learner"]' in text and text.count("{tutor: ") == len(warned)
    report = _validate_and_analyse(path)
    # analyse marks every play the tutor warned about
    turns = [t for g in report["games"] for t in g["turns"] if t["kind"] == "play" and t["player"] == "learner"]
    marked = [t for t in turns if t["mark"]]
    assert len(marked) >= len(warned)


def test_a_scripted_backgammon_match_is_played_to_the_end(tmp_path: Path) -> None:
    seen, path = _script(["--seed", "5", "--match", "3", "--as", "O"], "backgammon", tmp_path, worst=False)
    assert "match over" in seen and any(line.startswith("game over: ") for line in seen)
    report = _validate_and_analyse(path)
    assert report["units"].startswith("EMG")  # type: ignore[union-attr]


def test_the_tutor_warns_of_a_planted_bad_play_with_the_best_one() -> None:
    s = Session("backgammon", human=0, seed=2)
    out = s.start()
    while not out[-1].startswith("position: "):  # roll where a double is possible
        out = s.command("roll")
    ranked = s.ranked()
    worst = ranked[-1]
    assert worst.loss >= 0.03, "the roll has a costly play"
    warning = s.command(str(worst.play))
    assert warning[0].startswith("tutor: ") and f"best {ranked[0].play}" in warning[0]
    assert f"lost {worst.loss:.3f}" in warning[0]
    # the play is not made until kept; another play replaces it
    assert s.game is not None and s.game.dice is not None
    after = s.command(str(ranked[0].play))
    assert not any(line.startswith("tutor: ") for line in after)
    # undo goes back to the same roll
    undone = s.command("undo")
    assert undone[0] == "undone" and undone[1] == out[-1]


def test_illegal_plays_and_commands_out_of_place_say_why() -> None:
    s = Session("long", human=0, seed=3)
    s.start()
    with pytest.raises(SessionError, match=r"no-checker.*the legal plays: 24/"):
        s.command("13/8")
    with pytest.raises(SessionError, match="nothing to keep"):
        s.command("keep")
    with pytest.raises(SessionError, match="the dice are rolled"):
        s.command("roll")
    with pytest.raises(SessionError, match="nothing to undo"):
        s.command("undo")
    for refused in ("gulbara", "crazy-gulbara", "dutch"):  # rules the networks do not cover: said clearly
        with pytest.raises(NardtoolsError, match="cannot evaluate"):
            Session(refused)


def _drive(s: Session, out: list[str], turns: int) -> list[str]:
    """Play ``turns`` of the learner's commands (each roll's last legal play); every line seen."""
    seen = list(out)
    for _ in range(turns):
        if s.finished:
            break
        assert s.game is not None
        command = {"cube": "roll", "answer": "take", "keep": "keep"}.get(s.awaiting) or (
            str(s.game.legal_plays()[-1].play) or "-")
        seen += s.command(command)
    return seen


def test_a_roll_with_no_legal_play_passes_the_turn_and_says_so() -> None:
    s = Session("backgammon", human=0, seed=2, tutor=False)
    seen = _drive(s, s.start(), 30)
    passed = [line for line in seen if line.startswith("you rolled ")]
    assert passed[0] == "you rolled 55: no legal play, the turn passes"
    assert "X 55: -" in s.record()  # recorded as the pass it is
    before = seen.index(passed[0])
    assert not seen[before - 1].startswith("position: ")  # nothing was asked for it
    assert any(line.startswith("bot rolls ") for line in seen)  # the bot's dice are shown


def test_undo_is_offered_only_when_there_is_a_play_to_take_back() -> None:
    s = Session("long", human=0, seed=3)
    s.start()
    assert s.awaiting == "play" and not s.may_undo
    assert s.game is not None
    s.command(str(s.game.legal_plays()[0].play))
    assert s.may_undo
    # the record numbers its turns (the replay page numbered the bot's 0. without)
    moves = [line for line in s.record().splitlines() if line[:1].isdigit()]
    assert moves[:2] == [f"1. {moves[0][3:]}", f"1. {moves[1][3:]}"] and moves[0][3] != moves[1][3]


def test_hostile_names_are_saved_as_records_that_read_back(tmp_path: Path) -> None:
    from nardtools.notation.reading import read_record

    name = 'a "quoted" \\ name\nwith a line break'
    s = Session("long", human=0, seed=3, names=(name, "nardtools"))
    s.start()
    assert s.save(tmp_path / "game.nrd") == [f"saved: {tmp_path / 'game.nrd'}"]
    assert read_record(tmp_path / "game.nrd").games[0].tags[2] == ("X", name)


def _started(tmp_path: Path, out: Path, *args: str) -> subprocess.Popen[str]:
    """``play`` as a script runs it, stopped at its first question."""
    proc = subprocess.Popen([sys.executable, "-m", "nardtools", "play", "-o", str(out), *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            bufsize=1, cwd=tmp_path)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("position: "):
            return proc
    raise AssertionError("play asked nothing")


@pytest.mark.parametrize("signal_name, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_an_interrupted_terminal_game_is_saved(tmp_path: Path, signal_name: str, code: int) -> None:
    import signal

    from nardtools.notation.reading import read_record

    out = tmp_path / "game.nrd"
    proc = _started(tmp_path, out, "--seed", "3")
    proc.send_signal(getattr(signal, signal_name))
    rest, _ = proc.communicate(timeout=120)
    assert proc.returncode == code
    assert f"saved: {out}" in rest.splitlines()
    assert read_record(out).games


def test_a_terminal_game_whose_folder_is_gone_is_saved_in_the_current_folder(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = _started(tmp_path, gone / "game.nrd")
    gone.rmdir()
    rest, _ = proc.communicate("quit\n", timeout=120)
    assert proc.returncode == 0
    lines = rest.splitlines()
    assert any(line.startswith(f"could not save to {gone / 'game.nrd'}") for line in lines)
    assert lines[-1] == f"saved: {tmp_path / 'game.nrd'}" and (tmp_path / "game.nrd").exists()


def test_the_seed_is_chosen_and_printed_when_not_given(tmp_path: Path) -> None:
    seeds = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "nardtools", "play", "-o", str(tmp_path / "g.nrd")],
                              input="quit\n", capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        seeds.append(done.stdout.splitlines()[0])
    assert all(line.startswith("seed: ") for line in seeds) and seeds[0] != seeds[1]


def _at(rules: str, position: str, *, human: int = 0) -> Session:
    """A session whose game stands at ``position`` (its side on roll to roll)."""
    from nardtools import Position
    from nardtools.game import Game

    s = Session(rules, human=human, seed=3)
    s.start()
    game = Game(s.ruleset, 0, (0, 0), False, seed=5)
    game.set_board(Position.parse(position))
    s.game = game
    s.games[-1] = (game, s.lines)
    return s


def test_a_resignation_is_at_a_level_and_the_bot_answers_by_its_evaluation(tmp_path: Path) -> None:
    from nardtools.notation.reading import read_record
    from nardtools.notation.replay import replay_match

    s = _at("long", "long X 24:7,10:1,1:7 / 3:1,2:2,1:5")  # the bot is sure of a mars
    assert [str(k) for k in s.levels()] == ["oin", "mars"]
    refused = s.command("resign")
    assert refused[0].startswith("bot rejects: playing on is worth +2.000 to it, resigning (oin) +1.000")
    assert s.game is not None and s.game.outcome is None
    with pytest.raises(SessionError, match="resign at a level: oin, mars"):
        s.command("resign gammon")
    assert s.command("resign mars")[:2] == ["bot accepts", "game over: O wins 2 points (mars): nardtools wins"]
    s.save(tmp_path / "resigned.nrd")
    replayed = replay_match(read_record(tmp_path / "resigned.nrd"))
    assert not replayed.errors and replayed.games[0].game.outcome.points == 2  # type: ignore[union-attr]


def test_the_bot_resigns_when_it_is_lost_and_a_rejection_plays_on() -> None:
    s = _at("long", "long O 24:7,10:1,1:7 / 3:1,2:2,1:5")  # the bot (O) is on roll, lost, with a mars
    assert s._advance() == ["bot resigns (mars, 2 points): accept or reject"]
    assert s.awaiting == "resignation"
    with pytest.raises(SessionError, match="accept, or reject"):
        s.command("13/8")
    after = s.command("reject")  # (costs nothing: the mars is certain) the bot plays its turn
    assert after[0].startswith("bot rolls ") and "{O offered to resign (mars); X rejected}" in s.record()
    s = _at("long", "long O 24:7,10:1,1:7 / 3:1,2:2,1:5")
    s._advance()
    assert s.command("accept")[0] == "game over: X wins 2 points (mars): you win"


def test_the_tutor_warns_before_a_resignation_that_gives_away_equity() -> None:
    s = Session("backgammon", human=0, seed=2)
    s.start()
    warning = s.command("resign gammon")[0]
    assert warning.startswith("tutor: blunder: playing on is worth") and "this loses" in warning
    assert s.game is not None and s.game.outcome is None
    assert s.command("keep")[:2] == ["bot accepts", "game over: O wins 2 points (gammon): nardtools wins"]


def test_a_script_of_hostile_commands_is_answered_line_by_line_and_the_game_saved(tmp_path: Path) -> None:
    out = tmp_path / "g.nrd"
    commands = ["", "   ", "13/8", "resign koks", "resign 9", "keep", "undo", "take", "accept", "x" * 5000,
                "24/18\x1b[2J", "quit"]
    done = subprocess.run([sys.executable, "-m", "nardtools", "play", "--seed", "3", "-o", str(out)],
                          input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 9  # each bad command one line; the blank ones nothing
    assert done.stdout.splitlines()[-1] == f"saved: {out}"


def test_a_browser_session_interrupted_saves_the_record(tmp_path: Path) -> None:
    from nardtools.notation.reading import read_record
    from nardtools.teaching.play_web import play_in_browser

    said: list[str] = []

    def interrupted(url: str) -> None:
        assert "/launch/" in url and "token" not in url  # the token is not on the browser's command line
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        play_in_browser(Session("long", human=0, seed=3), tmp_path / "g.nrd", say=said.append, open_page=interrupted)
    assert said[-1] == f"saved: {tmp_path / 'g.nrd'}" and read_record(tmp_path / "g.nrd").games
