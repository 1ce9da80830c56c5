"""Playing against the evaluator, with a tutor: a game or a match, one
learner against nardtools' network (or GNU Backgammon's) at a chosen ply.

A :class:`Session` holds the match and the game in play and answers the
learner's commands one at a time (:meth:`Session.command`); it says what
happens as lines of text, so that the terminal, a script reading standard
output and the browser page show the same thing:

- ``position: <position with its dice, cube and score>`` before each of the
  learner's plays (the canonical position text: a script can answer it);
- ``cube: you may double: double, or roll`` where the learner may double;
- ``bot rolls <dice>`` then ``bot plays: <play>``; ``you rolled <dice>: no
  legal play, the turn passes`` (nothing is asked then); ``bot doubles to N:
  take or pass``, ``bot takes``,
  ``bot passes``;
- ``tutor: ...`` before a play or cube action that loses at least the
  doubtful threshold (0.030): the best action, the equity lost, the mark;
  the learner then types ``keep``, or another play;
- ``game over: ...``, then at the end the summary (the learner's error rate,
  marks and luck, by :func:`~nardtools.analysis.analyse.analyse_match` of the
  saved record: what ``analyse`` reports for it).

Commands: a play in the usual notation, ``moves``, ``hint``, ``undo`` (take
back the last own play: the game goes back to the same roll), ``resign
[LEVEL]`` (single, gammon, backgammon; oin, mars, and home-mars or koks
where the ruleset scores them; default the weakest), ``quit``; ``double``,
``roll``, ``take``, ``pass`` at the cube; ``accept`` or ``reject`` when the
bot resigns; ``keep`` after a tutor's warning.  The bot accepts a
resignation worth at least playing on to it, at the session's ply, and
resigns itself, at the weakest level worth as much to the learner as
playing on, once its chance of winning is gone (``bot resigns (LEVEL, N
points): accept or reject``).  An illegal play gets the engine's message and the legal
plays.  The record (:meth:`Session.record`) is the native format, the tutor's
findings as comments; ``validate``, ``replay`` and ``analyse`` read it.

>>> s = Session("long", human=0, seed=3, names=("learner", "nardtools"))
>>> out = s.start()
>>> any(line.startswith("position: long") for line in out)
True
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NardtoolsError
from ..game import Game, Match, Phase
from ..outcome import BACKGAMMON_KINDS, LONG_KINDS, OutcomeKind
from ..position import PLAYER_NAMES
from ..rules import Ruleset, find_ruleset

if TYPE_CHECKING:
    from ..analysis.analyse import PlayerAnalysis
    from ..analysis.cubeful import CubeDecision, CubeState
    from ..setup import Setup

#: A warning comes from this much equity lost (gnubg's doubtful).
TUTOR_THRESHOLD = 0.03
#: The bot resigns at a level worth this little less to the learner than playing on.
RESIGN_SLACK = 0.005


class SessionError(NardtoolsError):
    """A command the session cannot carry out now (the message says why)."""


@dataclasses.dataclass(frozen=True)
class _Warning:
    """A tutor's pending warning: the command it is about and what to say."""

    command: str
    text: str


class Session:
    """One learner against the evaluator (see the module docstring).

    ``human`` is the learner's side (0 = X, 1 = O); ``match`` a match length
    (0: one money game); ``ply`` the bot's look-ahead (the tutor judges at
    the same ply); ``tutor`` whether to warn; ``seed`` the dice.
    """

    def __init__(self, ruleset: str | Ruleset = "long", *, human: int = 0, ply: int = 0, tutor: bool = True,
                 seed: int = 1, match: int = 0, names: Sequence[str] = ("you", "nardtools"),
                 evaluator: str = "nardtools", weights: str | None = None) -> None:
        from ..analysis.analyse import Judge
        from ..analysis.evaluate import Evaluator

        self.ruleset = find_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        self.rules = self.ruleset.rules
        if human not in (0, 1):
            raise SessionError("the learner plays X (0) or O (1)")
        self.ev = Evaluator(self.rules, weights=weights, evaluator=evaluator)  # refuses rules it cannot judge
        self.human, self.ply, self.tutor, self.seed, self.length = human, ply, tutor, seed, match
        self.names = (names[0], names[1]) if human == 0 else (names[1], names[0])
        self.judge = Judge.for_match(self.rules, match)
        self.match = Match(self.ruleset, match)  # the score and the Crawford game
        self.games: list[tuple[Game, list[str]]] = []  # each game and its record lines
        self.game: Game | None = None
        self.lines: list[str] = []
        self.warning: _Warning | None = None
        self.snapshot: tuple[Game, int] | None = None  # before the learner's last play: (game, record lines)
        self._at_prompt: tuple[Game, int] | None = None  # before the play now asked for
        self.finished = False
        self._rejected: tuple[int, int] | None = None  # (game, turn) where the learner rejected the bot's resignation

    # ------------------------------------------------------------ the flow
    def start(self) -> list[str]:
        """Start the first game; what happens until the learner must act."""
        return self._new_game()

    def _new_game(self) -> list[str]:
        n = len(self.games)
        game = self.match.new_game(seed=self.seed * 1000 + n)
        self.game, self.lines = game, []
        self.games.append((game, self.lines))
        self.snapshot = None
        score = self.match.score
        out = [f"game {n + 1}" + (f", score {score[0]}-{score[1]} to {self.length}" if self.length else "")
               + (" (Crawford game)" if game.crawford else "")]
        rng = random.Random(self.seed * 1000 + n)
        while game.phase is Phase.OPENING:  # (a tie throws again)
            game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
        return out + self._advance()

    def _advance(self) -> list[str]:
        """Play the bot's turns until the learner must act (or the game ends)."""
        game = self.game
        assert game is not None
        out: list[str] = []
        while True:
            if game.phase is Phase.OVER:
                return out + self._game_over()
            side = game.on_roll
            if game.phase is Phase.DOUBLED:
                if 1 - game.doubler == self.human:
                    return [*out, f"bot doubles to {game.cube * 2}: take or pass"]
                out += self._bot_answers()
                continue
            if game.phase is Phase.ROLL:
                if side == self.human:
                    if self._human_may_double():
                        return [*out, "cube: you may double: double, or roll"]
                    game.roll()
                    continue
                resigns = self._bot_resigns()
                if resigns is not None:
                    game.resign(side, resigns)
                    assert game.offered is not None
                    points = game.offered.points
                    return [*out, f"bot resigns ({resigns}, {points} point{'s' if points != 1 else ''}): "
                                  "accept or reject"]
                if self._bot_doubles():
                    game.double()
                    self.lines.append(f"{PLAYER_NAMES[side]} double => {game.cube * 2}")
                    continue
                game.roll()
            if game.phase is Phase.PLAY:
                if side != self.human:
                    out += self._bot_plays()
                elif (forced := self._no_play()) is not None:
                    out.append(forced)
                else:
                    return out + self._prompt()

    def _no_play(self) -> str | None:
        """Where the learner's roll has no legal play: the turn passed, said
        as a line; else None."""
        game = self.game
        assert game is not None
        plays = game.legal_plays()
        if len(plays) != 1 or plays[0].play.steps:
            return None
        rolled = game.rolled
        self.lines.append(f"{PLAYER_NAMES[self.human]} {rolled}: -")
        game.play(plays[0].play)
        return f"you rolled {rolled}: no legal play, the turn passes"

    @property
    def awaiting(self) -> str:
        """What the session waits for from the learner: ``play``, ``keep`` (a
        tutor's warning is pending), ``cube`` (double, or roll), ``answer``
        (take or pass), ``resignation`` (accept or reject the bot's), or
        ``""`` once it is over."""
        game = self.game
        if self.finished or game is None:
            return ""
        if self.warning is not None:
            return "keep"
        if game.phase is Phase.DOUBLED:
            return "answer"
        if game.phase is Phase.RESIGNED:
            return "resignation"
        return "cube" if game.phase is Phase.ROLL else "play"

    @property
    def may_undo(self) -> bool:
        """Whether ``undo`` has a play of the learner's to take back."""
        return self.snapshot is not None and not self.finished

    def _prompt(self) -> list[str]:
        game = self.game
        assert game is not None
        self._at_prompt = (copy.deepcopy(game), len(self.lines))
        return [f"position: {self.setup()}"]

    def setup(self) -> Setup:
        """The game in play as a position with its dice (while they are to be
        played), cube and score: what the ``position:`` line shows."""
        from ..setup import Setup

        game = self.game
        assert game is not None
        rolled = game.rolled if game.phase is Phase.PLAY else None
        dice = (rolled.high, rolled.low) if rolled is not None else None
        return Setup(game.position, dice, game.cube, game.cube_owner, game.match_length, game.score,
                     game.crawford and bool(game.match_length))

    # ------------------------------------------------------------ judging
    def _state(self, side: int) -> CubeState:
        game = self.game
        assert game is not None
        return self.judge.state(game, side, game.cube, game.cube_owner)

    def ranked(self) -> list[Any]:
        """The legal plays of the roll in play, best first, at the score."""
        from ..analysis.evaluate import ranked_plays

        game = self.game
        assert game is not None and game.dice is not None
        return ranked_plays(self.ev, game.position, game.dice, self.ply, first_turn=game.first_turn,  # type: ignore[arg-type]
                            value=self.judge.play_value(self._state(game.on_roll)))

    def cube_decision(self, side: int) -> CubeDecision | None:
        """The cube decision of ``side`` before its roll, or None when it may not double."""
        game = self.game
        assert game is not None
        position = game.position if game.position.player == side else game.position.flip()
        found = self.judge.decision(self.ev, position, self._state(side), self.ply)
        return None if found is None else found[0]

    def _human_may_double(self) -> bool:
        """Whether to ask "double, or roll" (the rule alone: no evaluation)."""
        return self.judge.valuer is not None and self._state(self.human).may_double(self.rules)

    def _bot_doubles(self) -> bool:
        game = self.game
        assert game is not None
        d = self.cube_decision(game.on_roll)
        return d is not None and d.should_double

    def _bot_answers(self) -> list[str]:
        game = self.game
        assert game is not None
        d = self.cube_decision(game.doubler)
        taker = PLAYER_NAMES[1 - game.doubler]
        if d is None or d.should_take:
            game.take()
            self.lines.append(f"{taker} take")
            return ["bot takes"]
        game.drop()
        self.lines.append(f"{taker} drop")
        return ["bot passes"]

    def _bot_plays(self) -> list[str]:
        game = self.game
        assert game is not None
        best = self.ranked()[0]
        rolled = game.rolled
        self.lines.append(f"{PLAYER_NAMES[1 - self.human]} {rolled}: {str(best.play) or '-'}")
        game.play(best.play)
        return [f"bot rolls {rolled}", f"bot plays: {str(best.play) or '-'}"]

    # ------------------------------------------------------------ commands
    def command(self, text: str) -> list[str]:
        """Carry out one of the learner's commands; what happens, as lines."""
        if self.finished:
            raise SessionError("the session is over")
        word = " ".join(text.split())
        if not word:
            return []
        game = self.game
        assert game is not None
        lowered = word.lower()
        if lowered == "quit":
            self.finished = True
            return ["quit"]
        if (lowered == "resign" or lowered.startswith("resign ")) and game.phase is not Phase.RESIGNED:
            return self._resign(lowered[len("resign"):].strip())
        if lowered == "keep":
            if self.warning is None:
                raise SessionError("nothing to keep: no warning is pending")
            pending, self.warning = self.warning, None
            return self._carry_out(pending.command, warned=pending.text)
        self.warning = None
        if lowered == "undo":
            return self._undo()
        if game.phase is Phase.RESIGNED:
            if lowered not in ("accept", "reject"):
                raise SessionError("the bot resigns: accept, or reject")
            return self._answer_resignation(lowered)
        if game.phase is Phase.DOUBLED:
            if lowered not in ("take", "pass", "drop"):
                raise SessionError("the bot has doubled: take or pass")
            return self._judged("pass" if lowered == "drop" else lowered)
        if game.phase is Phase.ROLL:
            if lowered == "hint":
                d = self.cube_decision(self.human)
                return [f"hint: {d}" if d is not None else "hint: no double possible"]
            if lowered not in ("double", "roll"):
                raise SessionError("before the roll: double, or roll")
            return self._judged(lowered)
        if lowered in ("double", "roll", "take", "pass", "drop"):
            raise SessionError("the dice are rolled: type a play (or moves, hint, undo, resign, quit)")
        if lowered == "moves":
            plays = game.legal_plays()
            return [f"moves: {len(plays)} legal: " + ", ".join(str(p.play) or "-" for p in plays)]
        if lowered == "hint":
            ranked = self.ranked()
            return ["hint: " + "; ".join(f"{r.play or '-'} {r.equity:+.3f}" for r in ranked[:5])]
        return self._judged(word)

    def _judged(self, command: str) -> list[str]:
        """A play or cube action, warned about first when the tutor finds it costly."""
        if self.tutor:
            warning = self._tutor(command)
            if warning:
                self.warning = _Warning(command, warning)
                return [f"tutor: {warning}; type keep, or another choice"]
        return self._carry_out(command)

    def _tutor(self, command: str) -> str:
        """The tutor's warning about ``command``, or ``""``."""
        from ..analysis.marks import mark_of

        game = self.game
        assert game is not None
        if command in ("double", "roll", "take", "pass"):
            side = self.human if command in ("double", "roll") else game.doubler
            d = self.cube_decision(side)
            if d is None:
                return ""
            action = {"roll": "no double"}.get(command, command)
            error = d.error(action)
            if error < TUTOR_THRESHOLD:
                return ""
            what = d.alert(action) or mark_of(error) or "doubtful"
            return f"{what} ({mark_of(error)}): {d.proper} proper; this loses {error:.3f}"
        judgement = self._judge_play(command)
        ranked = self.ranked()
        mine = next((r for r in ranked if r.result == judgement.result), None)
        if mine is None or mine.loss < TUTOR_THRESHOLD:
            return ""
        best = ranked[0]
        return (f"{mark_of(mine.loss)}: best {best.play or '-'} ({best.equity:+.3f}), yours "
                f"{mine.equity:+.3f}, lost {mine.loss:.3f}")

    def _judge_play(self, text: str) -> Any:
        from ..judge import check_play

        game = self.game
        assert game is not None and game.dice is not None
        j = check_play(game.position, game.dice, text, self.rules, first_turn=game.first_turn)
        if not j.legal:
            legal = ", ".join(str(p.play) or "-" for p in game.legal_plays())
            raise SessionError(f"{j.message}; the legal plays: {legal}")
        return j

    def _carry_out(self, command: str, warned: str = "") -> list[str]:
        game = self.game
        assert game is not None
        me = PLAYER_NAMES[self.human]
        note = f" {{tutor: {warned}}}" if warned else ""
        if command.startswith("resign "):
            return self._resign(command[len("resign "):], warned)
        if command == "roll":
            if warned:
                self.lines.append(f"{{{me} did not double; tutor: {warned}}}")
            game.roll()
            return self._advance()
        if command == "double":
            game.double()
            self.lines.append(f"{me} double => {game.cube * 2}{note}")
            return self._advance()
        if command in ("accept", "reject"):
            bot = PLAYER_NAMES[1 - self.human]
            if command == "accept":
                game.accept()
                self.lines.append(f"{bot} resign{note}")
                return self._game_over()
            assert game.offered is not None
            self.lines.append(f"{{{bot} offered to resign ({game.offered.kind}); {me} rejected"
                              + (f"; {warned}}}" if warned else "}"))
            game.reject()
            self._rejected = (len(self.games), sum(game.turns_played))
            return self._advance()
        if command in ("take", "pass"):
            if command == "take":
                game.take()
                self.lines.append(f"{me} take{note}")
            else:
                game.drop()
                self.lines.append(f"{me} drop{note}")
            return self._advance()
        j = self._judge_play(command)
        self.snapshot = self._at_prompt
        self.lines.append(f"{me} {game.rolled}: {str(j.play) or '-'}{note}")
        game.play(j.play)
        return self._advance()

    def _undo(self) -> list[str]:
        if self.snapshot is None:
            raise SessionError("nothing to undo: no play of yours in this game yet")
        game, length = self.snapshot
        self.game = copy.deepcopy(game)
        del self.lines[length:]
        self.games[-1] = (self.game, self.lines)
        self._at_prompt = self.snapshot
        return ["undone", f"position: {self.setup()}"]

    # ------------------------------------------------------------ resignations
    def levels(self) -> tuple[OutcomeKind, ...]:
        """The levels one may resign at in this game, weakest first (single,
        gammon, backgammon; oin, mars, and home mars or koks where the
        ruleset scores them)."""
        from ..outcome import points_for

        if not self.rules.is_long:
            return BACKGAMMON_KINDS
        return tuple(k for k in LONG_KINDS if k in (OutcomeKind.OIN, OutcomeKind.MARS) or
                     points_for(k, self.rules) > points_for(OutcomeKind.MARS, self.rules))

    def resignation_values(self, winner: int) -> tuple[float, list[float]]:
        """``winner``'s value of playing on, and of a resignation at each of
        :meth:`levels`, in the judge's units at the cube and score (the
        evaluator at the session's ply): the winner should accept a level
        worth at least playing on, and the loser gives away nothing by
        offering one worth no more than it."""
        from ..analysis.probabilities import flip
        from ..analysis.rows import boards_of

        game = self.game
        assert game is not None and self.judge.valuer is not None
        valuer = self.judge.valuer
        rows = boards_of([game.position])
        p = self.ev.values(rows, self.ply)
        if game.position.player != winner:
            p = flip(p, valuer.game)
        state, x = self._state(winner), valuer.efficiency(rows)
        every = LONG_KINDS if self.rules.is_long else BACKGAMMON_KINDS  # (the win classes' order)
        levels = self.levels()
        certain = np.zeros((len(levels), p.shape[1]), dtype=p.dtype)
        for i, kind in enumerate(levels):  # a sure win at that level: win, and each kind up to it
            certain[i, :every.index(kind) + 1] = 1.0
        return float(valuer.cubeful(p, state, x)[0]), [float(v) for v in valuer.cubeful(certain, state, x)]

    def _level(self, text: str) -> int:
        """A resignation level typed by the learner (a word or 1, 2, ...), 1-based."""
        levels = self.levels()
        if not text:
            return 1
        names = [str(k) for k in levels]
        if text.isdigit() and 1 <= int(text) <= len(levels):
            return int(text)
        if text in names:
            return names.index(text) + 1
        raise SessionError(f"resign at a level: {', '.join(names)} (or 1 to {len(levels)})")

    def _resign(self, text: str, warned: str = "") -> list[str]:
        game = self.game
        assert game is not None
        if game.phase not in (Phase.ROLL, Phase.PLAY) or game.on_roll != self.human:
            raise SessionError("resign on your turn")
        level = self._level(text)
        kind = self.levels()[level - 1]
        play_on, values = self.resignation_values(1 - self.human)
        me, bot = PLAYER_NAMES[self.human], PLAYER_NAMES[1 - self.human]
        given = values[level - 1] - play_on  # what resigning gives away against playing on
        if self.tutor and not warned and given >= TUTOR_THRESHOLD and values[level - 1] >= play_on:
            from ..analysis.marks import mark_of

            self.warning = _Warning(f"resign {kind}", f"{mark_of(given)}: playing on is worth {-play_on:+.3f} to "
                                                      f"you, resigning ({kind}) {-values[level - 1]:+.3f}; "
                                                      f"this loses {given:.3f}")
            return [f"tutor: {self.warning.text}; type keep, or another choice"]
        if values[level - 1] < play_on - 1e-9:
            self.lines.append(f"{{{me} offered to resign ({kind}); {bot} rejected}}")
            return [f"bot rejects: playing on is worth {play_on:+.3f} to it, resigning ({kind}) "
                    f"{values[level - 1]:+.3f}"]
        game.resign(self.human, kind)
        game.accept()
        self.lines.append(f"{me} resign" + (f" {{tutor: {warned}}}" if warned else ""))
        return ["bot accepts", *self._game_over()]

    def _bot_resigns(self) -> str | None:
        """The level the bot resigns at, before its roll: the weakest whose
        value to the learner is at least that of playing on (less
        :data:`RESIGN_SLACK`), where the bot's chance of winning is gone; else None."""
        game = self.game
        assert game is not None
        from ..analysis.rows import boards_of

        if self._rejected == (len(self.games), sum(game.turns_played)):
            return None  # rejected this turn: the bot plays it
        p, _ = self.ev.static(boards_of([game.position]))  # the bot is on roll: its own chances
        if p[0, 0] > 0.01:
            return None
        play_on, values = self.resignation_values(self.human)
        return next((str(k) for k, v in zip(self.levels(), values) if v >= play_on - RESIGN_SLACK), None)

    def _answer_resignation(self, answer: str) -> list[str]:
        """The learner accepts or rejects the bot's resignation (the tutor
        warns of a wrong answer first)."""
        game = self.game
        assert game is not None and game.offered is not None
        kind = game.offered.kind
        play_on, values = self.resignation_values(self.human)
        offered = values[self.levels().index(kind)]
        right = "accept" if offered >= play_on - 1e-9 else "reject"
        lost = abs(offered - play_on)
        if self.tutor and answer != right and lost >= TUTOR_THRESHOLD and self.warning is None:
            from ..analysis.marks import mark_of

            self.warning = _Warning(answer, f"{mark_of(lost)}: {right} (the {kind} is worth {offered:+.3f}, "
                                            f"playing on {play_on:+.3f}); this loses {lost:.3f}")
            return [f"tutor: {self.warning.text}; type keep, or another choice"]
        return self._carry_out(answer)

    def _game_over(self) -> list[str]:
        game = self.game
        assert game is not None and game.outcome is not None
        o = game.outcome
        self.match.finish(game)
        who = "you win" if o.winner == self.human else "nardtools wins"
        out = [f"game over: {PLAYER_NAMES[o.winner]} wins {o.points} point{'s' if o.points != 1 else ''} "
               f"({o.kind}): {who}"]
        if self.length and self.match.winner is None:
            return out + self._new_game()
        self.finished = True
        return [*out, "match over" if self.length else "session over"]

    # ------------------------------------------------------------ the record
    def record(self) -> str:
        """The session's games in the native format, the tutor's findings as comments."""
        from .session_record import record_text

        return record_text(self)

    def save(self, path: Path) -> list[str]:
        """Write the record to ``path`` and say where it went (see
        :func:`.session_record.save_record`: a game played is never lost)."""
        from .session_record import save_record

        return save_record(self, path)

    def finish(self, path: Path) -> list[str]:
        """End the session however it ends (over, quit, Ctrl-C, the browser
        gone): the record saved (:meth:`save`) first, then the learner's
        summary, as lines; a summary that cannot be made is said, the record
        is saved all the same."""
        self.finished = True
        saved = self.save(path)
        try:
            summary = self.summary()
        except NardtoolsError as e:
            summary = [f"summary: not made ({e})"]
        return [*summary, *saved]

    def summary(self) -> list[str]:
        """The learner's figures, from the analysis of the record (as ``analyse`` gives them)."""
        figures = self.figures()
        if figures is None:
            return ["summary: no play of yours was analysed"]
        p = figures
        cube = f", cube decisions {p.cube_decisions} ({p.cube_error_rate:.4f})" if p.cube_decisions else ""
        return [f"summary: {p.decisions} decisions, error rate {p.error_rate:.4f}, doubtful {p.doubtful}, "
                f"errors {p.errors}, blunders {p.blunders}{cube}, luck {p.luck:+.3f}"]

    def figures(self) -> PlayerAnalysis | None:
        from ..analysis.analyse import analyse_match
        from ..notation.reading import read_record
        from ..notation.replay import replay_match

        replayed = replay_match(read_record("session.nrd", self.record()))
        analysis = analyse_match(replayed, ply=self.ply, evaluator=self.ev.evaluator, weights=self.ev.weights)
        return analysis.players[self.human] if analysis.players[self.human].decisions else None

