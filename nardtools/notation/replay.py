"""Replaying records through the rules: where a record goes wrong, and why.

Each game is replayed through :class:`~nardtools.game.Game` under the
record's ruleset (or one given by the caller).  A problem stops that game (the
rest of it would describe a game that never happened) unless the replay is
lenient, in which case an illegal play that can be carried out on the board is
applied and the replay goes on; the other games are always replayed.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Collection, Iterable, Iterator, Mapping

from ..dice import Dice, Roll
from ..engine import legal_plays
from ..errors import GameStateError, IllegalPlayError, InvalidPlayError
from ..game import Game, Phase
from ..judge import check_play
from ..outcome import BACKGAMMON_KINDS, LONG_KINDS
from ..play import Play
from ..position import PLAYER_NAMES, Position
from ..rules import Ruleset
from ..setup import Setup
from .record import AUTO_DOUBLES, Action, ActionKind, GameRecord, MatchRecord
from .tags import VARIATIONS, tags_ruleset  # noqa: F401 - VARIATIONS is part of this module's interface


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a record, located and explained."""

    path: str
    line: int
    col: int
    game: int
    turn: int
    player: str
    dice: str
    rule: str
    message: str
    legal: tuple[str, ...] = ()
    severity: str = "error"  # or "warning"

    def __str__(self) -> str:
        who = f" ({self.player}, {self.dice})" if self.dice else f" ({self.player})" if self.player else ""
        where = f" game {self.game}, turn {self.turn}{who}:" if self.game else ""  # (reading problems have none)
        text = f"{self.path}:{self.line}:{self.col}:{where} {self.message}"
        if self.legal:
            shown = ", ".join(p or "(no move)" for p in self.legal[:8])
            more = f" and {len(self.legal) - 8} more" if len(self.legal) > 8 else ""
            text += f"\n    legal plays ({len(self.legal)}): {shown}{more}"
        return text

    def as_dict(self) -> dict[str, Any]:
        """The JSON form used by ``nardtools validate --format json``."""
        return {"line": self.line, "col": self.col, "game": self.game, "turn": self.turn,
                "player": self.player, "dice": self.dice, "rule": self.rule,
                "message": self.message, "severity": self.severity,
                "legal_plays": list(self.legal)}


@dataclass
class ReplayedTurn:
    """A play as replayed: the position before, the roll, the canonical play."""

    action: Action
    before: Position
    after: Position
    play: Play
    legal: bool
    dice: Roll | Dice | None = None  # the dice played: a roll, or dice carried over
    first_turn: bool = False  # the side's first turn (the head rule's exceptions)
    cube: int = 1  # the cube before the play
    cube_owner: int | None = None


@dataclass
class ReplayedGame:
    """One game's replay: its final state, its turns and its problems."""

    record: GameRecord
    game: Game
    turns: list[ReplayedTurn] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    stopped: bool = False  # replay stopped at an error
    edits: list[tuple[int, Action]] = field(default_factory=list)  # board edits, after this many turns
    offers: dict[int, int] = field(default_factory=dict)  # id(double or beaver action) -> the cube offered
    abandoned: bool = False  # the record ends on a roll with no play

    @property
    def complete(self) -> bool:
        """True when the game reached its end."""
        return self.game.phase is Phase.OVER

    @property
    def stop_reason(self) -> str:
        """Where and why the replay stopped short of the record's end (``""`` if it did not)."""
        if not self.stopped:
            return ""
        problem = next((p for p in reversed(self.problems) if p.severity == "error"), None)
        if problem is None:
            return "the record cannot be followed further"
        return f"game {problem.game}, turn {problem.turn} (line {problem.line}): {problem.message}"


@dataclass
class ReplayedMatch:
    """A whole record replayed."""

    record: MatchRecord
    ruleset: Ruleset
    games: list[ReplayedGame] = field(default_factory=list)

    @property
    def problems(self) -> list[Problem]:
        """Reading problems, then every game's problems, in file order."""
        return self.reading_problems + [p for g in self.games for p in g.problems]

    def problems_of(self, games: Collection[int] | None) -> list[Problem]:
        """:attr:`problems`, of the games numbered ``games`` only (reading problems always)."""
        return self.reading_problems + [p for g in self.games if games is None or g.record.number in games
                                        for p in g.problems]

    @property
    def reading_problems(self) -> list[Problem]:
        """Syntax problems found while reading, as problems."""
        return reading_problems(self.record)

    @property
    def errors(self) -> list[Problem]:
        """Problems of severity ``error``."""
        return [p for p in self.problems if p.severity == "error"]

    @property
    def turns(self) -> int:
        """Plays replayed."""
        return sum(len(g.turns) for g in self.games)

    def position_at(self, game: int | None = None, turn: int | None = None) -> Position:
        """The position before move number ``turn`` of game ``game`` (default:
        the first game; after its last play when ``turn`` is None).

        Raises :class:`~nardtools.errors.GameStateError` when there is no such game or turn."""
        return self.setup_at(game, turn).position

    def setup_at(self, game: int | None = None, turn: int | None = None, *, player: int | None = None) -> Setup:
        """Like :meth:`position_at`, with the dice about to be played, the cube
        and the score: what a diagram shows.  ``player`` picks one side's play
        when both sides have a turn of that number (default: the first)."""
        replayed = self.game(game)
        turns = replayed.turns
        if not turns:
            raise GameStateError(f"{self.record.path}: no game {game} with plays")
        g = replayed.game
        if turn is None:
            last = turns[-1]
            return Setup(last.after, None, g.cube, g.cube_owner, g.match_length, g.score, g.crawford,
                         game_state=2 if replayed.complete else 1)
        for t in turns:
            if t.action.number == turn and (player is None or t.action.player == player):
                roll = t.action.roll if not t.action.part else None
                dice = (roll.high, roll.low) if roll else None
                return Setup(t.before, dice, t.cube, t.cube_owner, g.match_length, g.score, g.crawford)
        if replayed.stopped:
            raise GameStateError(f"{self.record.path}: no turn {turn} in game {replayed.record.number}: the replay "
                                 f"stopped at {replayed.stop_reason}")
        raise GameStateError(f"{self.record.path}: game {replayed.record.number} has no turn {turn}")

    def game(self, number: int | None = None) -> ReplayedGame:
        """Game ``number`` (default: the first); :class:`~nardtools.errors.GameStateError` when absent."""
        for g in self.games:
            if number is None or g.record.number == number:
                return g
        raise GameStateError(f"{self.record.path}: no game {number}")


def reading_problems(record: MatchRecord) -> list[Problem]:
    """The syntax problems found while reading ``record``, as problems."""
    return [Problem(record.path, e.line, e.col, 0, 0, "", "", "syntax", e.bare_message, severity=e.severity)
            for e in record.errors]


def record_ruleset(record: MatchRecord, rules: str | None = None,
                   options: Mapping[str, str] | None = None) -> Ruleset:
    """The ruleset a record is replayed under: ``rules`` if given, else its
    ``Ruleset`` tag, else its ``Variation`` tag; then the options of its
    ``RuleOptions`` tag (``key=value;...``), then ``options`` on top."""
    return tags_ruleset(tuple(record.tags), rules, tuple(sorted((options or {}).items())))


def replay_match(record: MatchRecord, *, rules: str | None = None,
                 options: Mapping[str, str] | None = None, lenient: bool = False) -> ReplayedMatch:
    """Replay every game of a record; see the module docstring."""
    ruleset = record_ruleset(record, rules, options)
    result = ReplayedMatch(record, ruleset)
    result.games = list(replay_games(record, record.games, ruleset, lenient=lenient))
    return result


def replay_games(record: MatchRecord, games: Iterable[GameRecord], ruleset: Ruleset | None = None, *,
                 rules: str | None = None, options: Mapping[str, str] | None = None,
                 lenient: bool = False) -> Iterator[ReplayedGame]:
    """Replay games one by one as they are read (see
    :func:`~nardtools.notation.reading.open_record`): memory stays bounded by
    one game.  The ruleset is ``ruleset``, else the record's (found once its
    first game is read: a native record names it there)."""
    crawford_done = False
    previous: ReplayedGame | None = None
    for grec in games:
        if ruleset is None:
            ruleset = record_ruleset(record, rules, options)
        length = record.length
        score, said = _score(grec, previous, record)
        crawford = False
        if length and ruleset.rules.has_crawford_game and not crawford_done:
            at_point = [s == length - 1 for s in score]
            if any(at_point):
                crawford_done = True
                crawford = not all(at_point)
        inferred = None
        if crawford and previous is None and score != (0, 0) and ruleset.rules.cube:
            inferred = _post_crawford(grec, record)  # a fragment of a match
            crawford = inferred is None
        game = Game(ruleset, length, score, crawford, lenient=lenient)
        if previous is not None:
            _check_ended(previous, record, final=False)
            yield previous
        if said is not None and said.severity == "error":  # a score no game is played at: not replayed
            previous = ReplayedGame(grec, game, problems=[said], stopped=True)
            continue
        previous = _replay_game(grec, game, record)
        previous.problems[:0] = [p for p in (said, inferred) if p is not None]
    if previous is not None:
        _check_ended(previous, record, final=True)
        yield previous


def _score(grec: GameRecord, previous: ReplayedGame | None, record: MatchRecord) -> tuple[tuple[int, int],
                                                                                           Problem | None]:
    """The score a game is played at, and what to say of its header's.

    In a match, the score the results before it give, where the game before
    ended with one (GNU Backgammon scores a match by its results too): a
    header that says otherwise is warned of, and the Crawford game is judged
    from the results.  Where the record's own result was not the game's
    worth (warned of there), a header that follows the record's figure
    stands.  A score that is not below the match length is an
    error: no game is played at it."""
    score, said = grec.score, None
    length = record.length
    if length and previous is not None and previous.complete and previous.game.outcome is not None:
        o = previous.game.outcome
        before = previous.game.score
        won = (before[0] + o.points * (o.winner == 0), before[1] + o.points * (o.winner == 1))
        stated = previous.record.result  # a record whose result was warned of scores by its own figure
        if stated is not None and stated.player == o.winner and stated.value != o.points:
            by_record = (before[0] + stated.value * (o.winner == 0), before[1] + stated.value * (o.winner == 1))
            won = score if score == by_record else won
        if won != score and max(won) < length:
            said = Problem(record.path, grec.line, 1, grec.number, 0, "", "", "score-mismatch",
                           f"the header gives the score {score[0]}-{score[1]}, but game {previous.record.number}'s "
                           f"result makes it {won[0]}-{won[1]}: the game is played at {won[0]}-{won[1]}",
                           severity="warning")
            score = won
    if length and max(score) >= length:
        said = Problem(record.path, grec.line, 1, grec.number, 0, "", "", "score-past-length",
                       f"the score {score[0]}-{score[1]} is not below the match length {length}: no game is "
                       "played at it, and this one is not replayed")
    return score, said


def _post_crawford(grec: GameRecord, record: MatchRecord) -> Problem | None:
    """For a record that starts at a score one point from winning, which
    cannot say whether the Crawford game was played: the warning that it was
    (a double in this game shows it, since no one may double in the Crawford
    game), or ``None`` (the game is taken for the Crawford game)."""
    double = next((a for a in grec.actions if a.kind is ActionKind.DOUBLE), None)
    if double is None:
        return None
    return Problem(
        record.path, double.line, double.col, grec.number, double.number, _player(record, double.player), "",
        "crawford-inferred", f"the record starts at {grec.score[0]}-{grec.score[1]} in a {record.length}-point "
        "match, so it cannot say whether the Crawford game was played; this double shows it was: the game is "
        "replayed as post-Crawford", severity="warning")


def _check_ended(replayed: ReplayedGame, record: MatchRecord, final: bool) -> None:
    """A game record without a result: an error before the next game, a
    warning at the end of the file (the match was abandoned)."""
    grec = replayed.record
    if not replayed.stopped and not replayed.complete and grec.actions:
        last = grec.actions[-1]
        replayed.problems.append(Problem(
            record.path, last.line + 1, 1, grec.number, last.number, "", "", "incomplete-game",
            f"game {grec.number} ends without a result" + (
                " (the match was abandoned)" if final or replayed.abandoned else " before the next game starts"),
            severity="warning" if final or replayed.abandoned else "error"))


def _player(record: MatchRecord, player: int) -> str:
    name = record.players[player] if 0 <= player <= 1 else ""
    return name or PLAYER_NAMES[player]


class _Stop(Exception):
    """Ends the replay of one game."""


def _replay_game(grec: GameRecord, game: Game, record: MatchRecord) -> ReplayedGame:
    out = ReplayedGame(grec, game)
    actions = [a for a in grec.actions if a.kind is not ActionKind.LOSE]

    def problem(a: Action, rule: str, message: str, *, legal: tuple[str, ...] = (),
                col: int = 0, severity: str = "error") -> None:
        dice = str(a.roll) if a.roll else ""
        out.problems.append(Problem(record.path, a.line, col or a.col, grec.number, a.number,
                                    _player(record, a.player), dice, rule, message, legal, severity))

    auto = dict(grec.tags).get(AUTO_DOUBLES)
    if auto is not None:
        _automatic_doubles(auto, grec, out, record)
    out.stopped = _run(actions, game, out, problem, record, started=False)
    return out


def _automatic_doubles(count: str, grec: GameRecord, out: ReplayedGame, record: MatchRecord) -> None:
    """The cube doubled by tied opening throws, as the game's tag says."""
    try:
        if not (count.isdigit() and len(count) <= 2 and int(count) >= 1):
            raise GameStateError(f"expected a count of 1 or more, got {count[:20]!r}")
        for _ in range(int(count)):
            out.game.automatic_double()
    except GameStateError as exc:
        out.problems.append(Problem(record.path, grec.line, 1, grec.number, 0, "", "", "auto-doubles",
                                    f"[{AUTO_DOUBLES} \"{count[:20]}\"]: {exc}"))


def _run(actions: list[Action], game: Game, out: ReplayedGame, problem: Any, record: MatchRecord,
         started: bool) -> bool:
    """Apply ``actions`` to ``game``; True when the replay had to stop.  A
    variation (an alternative to an action) is replayed from a copy of the game
    as it stood before that action; its turns are not the game's."""
    for i, a in enumerate(actions):
        nxt = actions[i + 1] if i + 1 < len(actions) else None
        for variation in a.variations:
            scratch = ReplayedGame(out.record, copy.deepcopy(game), problems=out.problems)
            _run(list(variation), scratch.game, scratch, problem, record, started)
        try:
            if game.phase is Phase.OVER:
                if a.kind is ActionKind.WIN:
                    _check_result(a, game, problem)
                    continue
                problem(a, "after-end", f"{a.kind} after the end of the game")
                return True
            if not started and a.kind is not ActionKind.WIN:
                if game.phase is Phase.OPENING:
                    game.start(a.player)
                started = True
            if a.kind is ActionKind.ROLL and a.part:
                _part(a, game, out, problem, record)
            elif a.kind is ActionKind.ROLL or (a.kind is ActionKind.RESIGN and a.roll):
                if game.phase is Phase.PLAY:
                    problem(a, "turn-order", f"a new roll, but {_player(record, game.on_roll)} must first "
                            f"play +{game.dice} (dice carried over)")
                    return True
                _roll(a, nxt, game, out, problem, record)
            elif a.kind is ActionKind.SET_BOARD:
                _set_board(a, game, problem, record)
                out.edits.append((len(out.turns), a))
            elif a.kind is ActionKind.DOUBLE:
                if game.phase is Phase.ROLL and game.on_roll != a.player:
                    problem(a, "turn-order", f"{_player(record, a.player)} doubles, but "
                            f"{_player(record, game.on_roll)} is on roll")
                    return True
                game.double()
                out.offers[id(a)] = game.cube * 2
                if a.value and a.value != game.cube * 2:
                    problem(a, "cube-value", f"doubles to {a.value}, but the cube is at {game.cube}",
                            severity="warning")
            elif a.kind is ActionKind.TAKE:
                game.take()
            elif a.kind is ActionKind.DROP:
                game.drop()
            elif a.kind is ActionKind.BEAVER:
                game.beaver()
                out.offers[id(a)] = game.cube * 4
            elif a.kind is ActionKind.RESIGN:
                # "Resigns": the opponent's "Wins N" that must follow gives the level
                if nxt is None or nxt.kind is not ActionKind.WIN or nxt.player == a.player:
                    problem(a, "result", f"{_player(record, a.player)} resigns, but no result for "
                            f"{_player(record, 1 - a.player)} follows")
                    return True
            elif a.kind is ActionKind.WIN:
                if not started:  # a forfeit: the game never started
                    continue
                _resignation(a, game, problem)
        except GameStateError as e:
            problem(a, "game-state", str(e))
            return True
        except _Stop:
            return True
    return False


def _roll(a: Action, nxt: Action | None, game: Game, out: ReplayedGame, problem: Any,
          record: MatchRecord) -> None:
    assert a.roll is not None
    if game.phase is Phase.BEAVERED and a.player == game.doubler:
        game.take()  # a dice cell after a beaver is an implicit take (JF style)
    if game.phase is Phase.ROLL and game.on_roll != a.player:
        problem(a, "turn-order", f"a move by the wrong side: {_player(record, a.player)} plays, "
                f"but {_player(record, game.on_roll)} is on roll")
        raise _Stop
    game.roll(a.roll.high, a.roll.low)
    if a.kind is ActionKind.RESIGN or a.play is None:
        return  # "????": rolled, then resigned; the result follows
    if a.play == "" and nxt is None and not _dance_is_legal(game):
        # the record ends on a roll with no play: the game was abandoned there
        out.abandoned = True
        problem(a, "abandoned", f"the record ends after {_player(record, a.player)} rolled {a.roll}, with no "
                "play: the game was abandoned", severity="warning")
        return
    resigns = a.play == "" and nxt is not None and nxt.kind in (ActionKind.WIN, ActionKind.RESIGN)
    _apply_play(a, a.play, game, out, problem, resigns)


def _dance_is_legal(game: Game) -> bool:
    """Whether the dice just rolled cannot be played at all."""
    assert game.dice is not None
    return check_play(game.position, game.dice, "", game.rules, first_turn=game.first_turn).legal


def _set_board(a: Action, game: Game, problem: Any, record: MatchRecord) -> None:
    """A board edit: Snowie's ``Illegal play`` (the roller's play is not
    recorded, only the board after it) or XG's ``Set Pos``.  The game goes on
    from the recorded board; the edit is reported as a warning."""
    assert a.board is not None
    if a.roll is not None:
        if game.on_roll != a.player:
            problem(a, "turn-order", f"a board edit after a roll by {_player(record, a.player)}, but "
                    f"{_player(record, game.on_roll)} is on roll")
            raise _Stop
        game.set_board(a.board, played_by=a.player)
        problem(a, "board-edit", f"{_player(record, a.player)} rolled {a.roll} and played illegally "
                f"(Snowie); the game goes on from the recorded board {a.board}", severity="warning")
    else:
        game.set_board(a.board)
        problem(a, "board-edit", f"the record sets the board (XG Set Pos): {a.board}", severity="warning")


def _part(a: Action, game: Game, out: ReplayedGame, problem: Any, record: MatchRecord) -> None:
    """A play of dice carried over (``+55:``): the rest of a crazy sequence, or
    the opponent's share of unplayable dice (gul-bara)."""
    expected = game.dice.dice if game.phase is Phase.PLAY and game.dice is not None else None
    if expected != a.part or game.on_roll != a.player:
        due = (f"{_player(record, game.on_roll)} plays +{''.join(map(str, expected))}" if expected
               else f"{_player(record, game.on_roll)} rolls")
        problem(a, "turn-order", f"{_player(record, a.player)} plays +{''.join(map(str, a.part))}, "
                f"but {due} next")
        raise _Stop
    _apply_play(a, a.play or "", game, out, problem, resigns=False)


def _apply_play(a: Action, play: str, game: Game, out: ReplayedGame, problem: Any, resigns: bool) -> None:
    """Play the dice in hand, reporting an unreadable or illegal play (with the
    legal plays, which need full generation: only then) at the play's column.
    ``resigns``: an empty play followed by a result is a resignation (gnubg)."""
    before, dice = game.position, game.dice
    assert dice is not None
    first_turn = game.first_turn

    def legal() -> tuple[str, ...]:
        return tuple(str(p.play) for p in legal_plays(before, dice, game.rules, first_turn=first_turn))

    try:
        try:
            game.play(play)
        except IllegalPlayError:
            same = same_effect(before, dice, play, game.rules, first_turn) if a.by_effect else None
            if same is None:
                raise
            game.play(same)
    except InvalidPlayError as e:
        problem(a, "syntax", f"cannot read the play: {e}", col=a.play_col)
        raise _Stop from None
    except IllegalPlayError as e:
        if resigns:
            return
        message = str(e).split(" in position ")[0]
        message = message[message.find("illegal play"):] if "illegal play" in message else message
        # (a lenient game has already applied any play that can be carried out)
        problem(a, str(e.violation), f"{message}; position {before}", legal=legal(), col=a.play_col)
        raise _Stop from None
    event = game.history[-1]
    if event.note.startswith("condoned"):
        why = check_play(before, dice, play, game.rules, first_turn=first_turn)
        rule = str(why.violation) if why.violation else event.note.split(": ")[1]
        problem(a, rule, f"{why.message}; applied (a lenient replay goes on from the board after it)",
                col=a.play_col, legal=legal())
    assert event.play is not None
    out.turns.append(ReplayedTurn(a, before, game.position, event.play, not event.note,
                                  dice, first_turn, game.cube, game.cube_owner))


def same_effect(before: Position, dice: Any, play: str, rules: Any, first_turn: bool | None) -> Play | None:
    """The legal play that moves the mover's checkers as the steps of
    ``play`` do taken together, whatever their order or split between the
    dice: GNU Backgammon's SGF writes a play's checker moves, not always in an
    order the dice allow (``62: 7/1 1/off`` for ``7/5/off``).  ``None`` when
    no legal play, or more than one (hitting differently), does that."""
    mover = list(before.mover)
    for step in Play.parse(play).steps:
        mover[step.source] -= 1
        mover[step.target] += 1
    results = {lp.result: lp.play for lp in legal_plays(before, dice, rules, first_turn=first_turn)
               if list(lp.result.opponent) == mover}
    return next(iter(results.values())) if len(results) == 1 else None


def _resignation(a: Action, game: Game, problem: Any) -> None:
    """A ``Wins N`` while the game is still on: the other side resigned."""
    loser = 1 - a.player
    levels = LONG_KINDS if game.rules.is_long else BACKGAMMON_KINDS
    per_cube = max(1, -(-a.value // game.cube)) if a.value else 1
    level = min(per_cube, 3 if not game.rules.is_long else len(levels))
    if game.phase not in (Phase.ROLL, Phase.PLAY):
        problem(a, "game-state", f"'Wins {a.value}' in phase {game.phase}")
        raise _Stop
    game.resign(loser, level)
    game.accept()
    assert game.outcome is not None
    if game.outcome.points != a.value:
        problem(a, "result", f"the record says {a.value} points; a resignation at cube "
                f"{game.cube} is worth {game.outcome.points}", severity="warning")


def _check_result(a: Action, game: Game, problem: Any) -> None:
    outcome = game.outcome
    assert outcome is not None
    if outcome.winner != a.player:
        problem(a, "result", f"the record says {PLAYER_NAMES[a.player]} wins, but the game was won by "
                f"{PLAYER_NAMES[outcome.winner]}")
    elif outcome.points != a.value:
        problem(a, "result", f"the record says {a.value} points, the game is worth {outcome.points} "
                f"({outcome.kind} at cube {outcome.cube})", severity="warning")


def with_offers(replayed_game: ReplayedGame, plays: dict[int, str]) -> GameRecord:
    """A game's record with every cube offer's value filled in from the replay
    (a native ``X double`` may leave it out); ``plays`` is re-keyed to the new actions."""
    offers = replayed_game.offers
    actions = []
    for a in replayed_game.record.actions:
        b = a
        if a.kind in (ActionKind.DOUBLE, ActionKind.BEAVER) and not a.value and id(a) in offers:
            b = dataclasses.replace(a, value=offers[id(a)])
            if id(a) in plays:
                plays[id(b)] = plays[id(a)]
        actions.append(b)
    game: GameRecord = dataclasses.replace(replayed_game.record, actions=actions)
    return game


__all__ = ["Problem", "ReplayedGame", "ReplayedMatch", "ReplayedTurn", "record_ruleset",
           "replay_games", "replay_match", "with_offers"]
