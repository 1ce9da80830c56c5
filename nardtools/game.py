"""Games and matches: the opening roll, turn order, the doubling cube, resignation,
the end of the game and the match score (Crawford, Jacoby, beaver, automatic
doubles, the dead-cube prohibition).

A :class:`Game` is a small state machine driven by the actions a record holds::

    >>> from nardtools import find_ruleset
    >>> g = Game(find_ruleset("backgammon"))
    >>> g.opening_roll(3, 1)          # X threw 3, O threw 1: X starts with 31
    >>> g.phase, g.dice
    (<Phase.PLAY: 'play'>, Roll(3, 1))
    >>> g.play("8/5 6/5")
    >>> g.phase, g.on_roll
    (<Phase.ROLL: 'roll'>, 1)
    >>> g.double(); g.drop()
    >>> str(g.outcome)
    'O wins 1 point (single, drop)'

In Long Nardy the starter rolls again after the opening throw (``opening``
option ``reroll``).
"""

from __future__ import annotations

import copy
import enum
from dataclasses import dataclass, field

from .dice import Dice, Roll, SplitMix64
from .engine import LegalPlays, legal_plays
from .errors import GameStateError, play_error
from .judge import check_play
from .outcome import BACKGAMMON_KINDS, LONG_KINDS, Ending, Outcome, OutcomeKind, classify, points_for
from .play import Play
from .position import PLAYER_NAMES, Position
from .rules import Rules, Ruleset, game_mismatch


class Phase(str, enum.Enum):
    """Where a game stands."""

    OPENING = "opening"  # waiting for the opening throw (one die each)
    ROLL = "roll"  # the side on roll may double, resign or roll
    PLAY = "play"  # dice are rolled, a play is due
    DOUBLED = "doubled"  # the opponent must take, drop (or beaver)
    BEAVERED = "beavered"  # the doubler must take or drop the beaver
    RESIGNED = "resigned"  # a resignation awaits acceptance
    OVER = "over"

    def __str__(self) -> str:
        return self.value


@dataclass
class Event:
    """One thing that happened in a game, for history and replay."""

    player: int
    action: str  # opening, roll, play, double, take, drop, beaver, resign, accept, reject
    roll: Roll | Dice | None = None
    play: Play | None = None
    note: str = ""


def why_no_double(rules: Rules, side: int, *, cube: int = 1, cube_owner: int | None = None, match_length: int = 0,
                  score: tuple[int, int] = (0, 0), crawford: bool = False) -> str | None:
    """``None`` when ``side`` may double at this state of the cube and match,
    else the reason why not: the one rule of the game machine and of every
    cube verdict (the ruleset's cube, the Crawford game, the cube's owner, the
    cube limit, and QuentinC's dead-cube prohibition).

    >>> from nardtools import find_ruleset
    >>> why_no_double(find_ruleset("backgammon").rules, 0, cube=64)
    'the cube is at its limit 64'
    >>> why_no_double(find_ruleset("backgammon").rules, 0, cube=2, cube_owner=0) is None
    True
    """
    if not rules.cube:
        return "the ruleset plays without the doubling cube"
    if crawford:
        return "no doubling in the Crawford game"
    if cube_owner is not None and cube_owner != side:
        return f"the cube belongs to {PLAYER_NAMES[cube_owner]}"
    if cube * 2 > rules.cube_limit:
        return f"the cube is at its limit {rules.cube_limit}"
    if match_length and not rules.dead_cube and min(match_length - s for s in score) <= cube:
        return "doubling is forbidden when a side already wins the match with the current cube"
    return None


@dataclass
class Game:
    """One game under a ruleset, optionally inside a match.

    ``ruleset``: a :class:`Ruleset`, :class:`Rules`, a ruleset's name
    (``"long"``, ``"nardionline"``...), or a :class:`Position` to start from
    (then played under its game's usual ruleset).  ``match_length`` 0 is money
    play.  ``score`` is the score before the game (player 0, player 1);
    ``crawford`` marks the Crawford game; ``seed`` seeds :meth:`roll` without
    dice.  The game's state (phase, cube, dice, history...) is read from its
    attributes and changed only by its actions.

    >>> g = Game("long", seed=7)
    >>> g.start(0)
    >>> g.roll(6, 5)
    Roll(6, 5)
    >>> [str(p.play) for p in g.legal_plays()]
    ['24/18/13']
    >>> g.push("24/13"); str(g.position)
    'long O 24:15 / 24:14,13:1'
    >>> str(g.pop().play), g.phase, g.dice
    ('24/18/13', <Phase.PLAY: 'play'>, Roll(6, 5))
    >>> Game(Position.parse("backgammon X 6:2 / 6:2"), seed=1).rules.cube     # a position's own game
    True
    """

    ruleset: Ruleset | Rules | str | Position
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    position: Position = field(default=None)  # type: ignore[assignment]
    lenient: bool = False
    seed: int | None = None

    phase: Phase = field(default=Phase.OPENING, init=False)
    cube: int = field(default=1, init=False)
    cube_owner: int | None = field(default=None, init=False)
    dice: Roll | Dice | None = field(default=None, init=False)
    outcome: Outcome | None = field(default=None, init=False)
    turns_played: list[int] = field(default_factory=lambda: [0, 0], init=False)
    history: list[Event] = field(default_factory=list, init=False)
    auto_doubles: int = field(default=0, init=False)
    _pending: Outcome | None = field(default=None, init=False, repr=False)
    _resumed: Phase = field(default=Phase.ROLL, init=False, repr=False)
    _doubler: int = field(default=0, init=False, repr=False)
    _rolled: Roll | None = field(default=None, init=False, repr=False)  # the last roll
    # crazy gul-bara: doubles still to play
    _sequence: list[Dice] = field(default_factory=list, init=False, repr=False)
    _left: list[int] = field(default_factory=list, init=False, repr=False)  # dice the mover could not play
    # of those, still to be played by the opponent
    _owed: list[Dice] = field(default_factory=list, init=False, repr=False)
    _remainder_turn: bool = field(default=False, init=False, repr=False)
    _counted: bool = field(default=False, init=False, repr=False)
    _undo: list[dict[str, object]] = field(default_factory=list, init=False, repr=False)  # push's snapshots

    def __post_init__(self) -> None:
        from .rules import DEFAULT_RULESET, find_ruleset

        if isinstance(self.ruleset, Position):
            if self.position is not None:
                raise GameStateError("give the position once: Game(position) or Game(ruleset, position=...)")
            self.position, self.ruleset = self.ruleset, find_ruleset(DEFAULT_RULESET[self.ruleset.kind])
        elif isinstance(self.ruleset, str):
            self.ruleset = find_ruleset(self.ruleset)
        self.rules: Rules = self.ruleset.rules if isinstance(self.ruleset, Ruleset) else self.ruleset
        self._dice_rng = SplitMix64(self.seed if self.seed is not None else 0)
        if self.position is None:
            self.position = Position.start(self.rules.start)
        elif self.position.kind is not self.rules.game:
            name = self.ruleset.name if isinstance(self.ruleset, Ruleset) else "these rules"
            raise game_mismatch(name, self.rules.game, self.position.kind)

    # -------------------------------------------------------------- queries
    @property
    def on_roll(self) -> int:
        """The player whose turn it is (0 = X, 1 = O)."""
        return self.position.player

    @property
    def doubler(self) -> int:
        """The player who made the last double (or whose double awaits an answer)."""
        return self._doubler

    @property
    def rolled(self) -> Roll | None:
        """The last roll thrown (a crazy gul-bara sequence is played from it)."""
        return self._rolled

    @property
    def carried_over(self) -> bool:
        """True when the dice to play were not just rolled: the rest of a crazy
        gul-bara sequence, or the opponent's share of unplayable dice."""
        return self.phase is Phase.PLAY and (self._counted or self._remainder_turn)

    @property
    def is_money(self) -> bool:
        """True in money play (no match length)."""
        return self.match_length == 0

    def legal_plays(self) -> LegalPlays:
        """The legal plays for the dice now rolled."""
        self._need(Phase.PLAY)
        assert self.dice is not None
        return legal_plays(self.position, self.dice, self.rules, first_turn=self.first_turn)

    def why_no_double(self) -> str | None:
        """``None`` when the side on roll may double now, else the reason why
        not (:func:`why_no_double`, in the roll phase)."""
        if self.phase is not Phase.ROLL:
            return f"a double is offered before rolling (the game is in phase {self.phase})"
        return why_no_double(self.rules, self.on_roll, cube=self.cube, cube_owner=self.cube_owner,
                             match_length=self.match_length, score=self.score, crawford=self.crawford)

    # -------------------------------------------------------------- actions
    def opening_roll(self, die_x: int, die_o: int) -> None:
        """The opening throw, one die each.  A tie throws again (and may double the
        cube automatically); otherwise the higher die starts."""
        self._need(Phase.OPENING)
        if die_x == die_o:
            doubled = self._tie()
            note = f"tie: automatic double to {self.cube}" if doubled else "tie"
            self.history.append(Event(-1, "opening", Roll(die_x, die_o), note=note))
            return
        starter = 0 if die_x > die_o else 1
        if self.position.player != starter:
            self.position = self.position.flip()
        self.history.append(Event(starter, "opening", Roll(die_x, die_o)))
        if self.rules.opening == "play-opening-dice":
            self.dice = self._rolled = Roll(die_x, die_o)
            self._counted = False
            self.phase = Phase.PLAY
        else:
            self.phase = Phase.ROLL

    def _tie(self) -> bool:
        """A tied opening throw: the cube doubles when the rules' automatic
        doubles allow (and not in the Crawford game).  True when it did."""
        if (self.rules.cube and self.auto_doubles < self.rules.auto_doubles and not self.crawford
                and self.cube * 2 <= self.rules.cube_limit):
            self.cube *= 2
            self.auto_doubles += 1
            return True
        return False

    def automatic_double(self) -> None:
        """An automatic double whose tied opening throw the record does not
        show (its ``AutoDoubles`` tag): :class:`GameStateError` when the rules
        allow no more of them.

        >>> from nardtools import find_ruleset
        >>> g = Game(find_ruleset("short-academic"))
        >>> g.automatic_double(); g.cube
        2
        >>> g.automatic_double()
        Traceback (most recent call last):
        ...
        nardtools.errors.GameStateError: no automatic double: the rules allow at most 1
        """
        self._need(Phase.OPENING)
        if not self._tie():
            why = ("the rules use no cube" if not self.rules.cube
                   else "the Crawford game has none" if self.crawford
                   else f"the cube limit is {self.rules.cube_limit}" if self.cube * 2 > self.rules.cube_limit
                   else f"the rules allow at most {self.rules.auto_doubles}")
            raise GameStateError(f"no automatic double: {why}")
        self.history.append(Event(-1, "opening", None, note=f"tie: automatic double to {self.cube}"))

    def start(self, player: int) -> None:
        """Start the game with ``player`` on roll, skipping the opening throw (for
        records that do not show it)."""
        self._need(Phase.OPENING)
        if self.position.player != player:
            self.position = self.position.flip()
        self.phase = Phase.ROLL

    def roll(self, d1: int | None = None, d2: int | None = None) -> Roll:
        """The side on roll throws ``d1`` and ``d2``, or, without them, dice from
        the game's seeded generator (``seed``); returns the roll."""
        if self.phase is Phase.OPENING:
            raise GameStateError("the game starts with the opening throw (opening_roll) or start()")
        self._need(Phase.ROLL)
        if (d1 is None) != (d2 is None):
            raise GameStateError("give both dice, or neither (the game's seeded dice)")
        if d1 is None or d2 is None:
            if self.seed is None:
                raise GameStateError("roll() without dice needs a seeded game: Game(..., seed=N)")
            d1, d2 = self._dice_rng.die(), self._dice_rng.die()
        roll = Roll(d1, d2)
        self.history.append(Event(self.on_roll, "roll", roll))
        self._rolled = roll
        self._counted = False
        self._left = []
        self.dice = roll
        crazy = self.rules.crazy_doubles
        if roll.is_double and crazy != "none":
            # crazy gul-bara: the double, then every higher double up to 6-6
            times = 2 if crazy == "twice" else 4
            self._sequence = [Dice((v,) * times) for v in range(roll.high, 7)]
            self.dice = self._sequence.pop(0)
        self.phase = Phase.PLAY
        return roll

    # ------------------------------------------------------------ push and pop
    def push(self, play: Play | str) -> None:
        """:meth:`play`, remembering the state before it for :meth:`pop`
        (python-chess's ``Board.push``)."""
        snapshot = {name: copy.copy(value) for name, value in vars(self).items() if name != "_undo"}
        self.play(play)
        self._undo.append(snapshot)

    def pop(self) -> Event:
        """Undo the last :meth:`push`: the game is as it was before that play
        (its dice rolled); returns the play's event."""
        if not self._undo:
            raise GameStateError("nothing to pop: no play was pushed")
        event = next(e for e in reversed(self.history) if e.action == "play")
        for name, value in self._undo.pop().items():
            setattr(self, name, value)
        return event

    def play(self, play: Play | str) -> None:
        """Play the rolled dice.  An illegal play raises :class:`IllegalPlayError`,
        unless the game is lenient (or the ruleset condones illegal plays) and the
        play can be carried out on the board."""
        self._need(Phase.PLAY)
        assert self.dice is not None
        player = self.on_roll
        j = check_play(self.position, self.dice, play, self.rules, first_turn=self.first_turn)
        if not j.legal:
            assert j.violation is not None
            if not (self.lenient or self.rules.condone_illegal) or j.result is None:
                raise play_error(
                    f"{PLAYER_NAMES[player]} {j.message} in position {self.position}",
                    violation=j.violation, position=self.position, roll=self.dice, play=play)
        assert j.result is not None and j.play is not None
        self.history.append(Event(player, "play", self.dice, j.play,
                                  note="" if j.legal else f"condoned: {j.violation}"))
        self.position = j.result
        if not self._remainder_turn and not self._counted:  # the first play of a turn
            self.turns_played[player] += 1
            self._counted = True
        left = list(self.dice.dice)
        for d in j.dice_used:
            left.remove(d)
        self.dice = None
        loser = self.position.mover
        if sum(self.position.opponent[1:26]) == 0:  # the player who just moved is done
            self._finish(player, classify(loser, self.rules), Ending.BEAR_OFF)
            return
        self.phase = Phase.ROLL
        self._next_dice(left)

    def _next_dice(self, left: list[int]) -> None:
        """After a play: what is played next, and by whom (gul-bara's rules).

        The mover plays the rest of a crazy sequence; dice it could not play
        go to the opponent when the ``remainder`` option says so, played after
        the mover's sequence, one number at a time; a roll played in full
        earns another roll under ``double-reroll``."""
        if self._remainder_turn:
            if self._owed:
                self._offer(self._owed.pop(0), same_side=True)
                return
            self._remainder_turn = False
            self.position = self.position.flip()  # the side that played the remainder now rolls
            return
        if self.rules.remainder == "opponent":
            self._left += left
        if self._sequence:
            self._offer(self._sequence.pop(0), same_side=True)
            return
        if self._left:
            values = sorted(self._left)
            self._owed = [Dice(tuple(values[i:i + 4])) for i in range(0, len(values), 4)]
            self._left = []
            self._remainder_turn = True
            self._offer(self._owed.pop(0), same_side=False)
            return
        rolled = self._rolled
        if self.rules.double_reroll and rolled is not None and rolled.is_double and not left:
            self.position = self.position.flip()  # played in full: the same side rolls again

    def _offer(self, dice: Dice, *, same_side: bool) -> None:
        if same_side:
            self.position = self.position.flip()  # play() handed the turn over; take it back
        self.dice = dice
        self.phase = Phase.PLAY

    def set_board(self, position: Position, played_by: int | None = None) -> None:
        """A board edit in a record: the game goes on from ``position``, whose
        ``player`` rolls next.  ``played_by`` names the side whose (unrecorded)
        play led there, which counts as its turn (Snowie's ``Illegal play``)."""
        if self.phase not in (Phase.OPENING, Phase.ROLL):
            raise GameStateError(f"the board can be set only between turns, not in phase {self.phase.value}")
        if position.kind is not self.position.kind:
            raise GameStateError(f"cannot set the board to {position}: a position of another game")
        if played_by is not None:
            self.turns_played[played_by] += 1
        self.history.append(Event(position.player, "set-board", note=str(position)))
        self.position = position
        self.dice = None
        self.phase = Phase.ROLL

    def double(self) -> None:
        """The side on roll offers a double (даве)."""
        reason = self.why_no_double()
        if reason:
            raise GameStateError(f"{PLAYER_NAMES[self.on_roll]} may not double: {reason}")
        self._doubler = self.on_roll
        self.history.append(Event(self.on_roll, "double", note=f"=> {self.cube * 2}"))
        self.phase = Phase.DOUBLED

    def take(self) -> None:
        """Accept the double (or, after a beaver, the beaver)."""
        if self.phase is Phase.BEAVERED:
            self.cube *= 4
            self.cube_owner = 1 - self._doubler
            self.history.append(Event(self._doubler, "take", note=f"beaver taken at {self.cube}"))
            self.phase = Phase.ROLL
            return
        self._need(Phase.DOUBLED)
        self.cube *= 2
        self.cube_owner = 1 - self._doubler
        self.history.append(Event(1 - self._doubler, "take", note=f"cube {self.cube}"))
        self.phase = Phase.ROLL

    def drop(self) -> None:
        """Refuse the double (or the beaver): the other side wins the cube's value."""
        if self.phase is Phase.BEAVERED:
            self.history.append(Event(self._doubler, "drop", note="beaver dropped"))
            self._finish(1 - self._doubler, self._single(), Ending.DROP, points=self.cube * 2)
            return
        self._need(Phase.DOUBLED)
        self.history.append(Event(1 - self._doubler, "drop"))
        self._finish(self._doubler, self._single(), Ending.DROP, points=self.cube)

    def beaver(self) -> None:
        """Take the double and redouble at once, keeping the cube (бивер)."""
        self._need(Phase.DOUBLED)
        if not self.rules.beaver:
            raise GameStateError("the ruleset does not allow beavers")
        if self.cube * 4 > self.rules.cube_limit:
            raise GameStateError(f"a beaver would pass the cube limit {self.rules.cube_limit}")
        self.history.append(Event(1 - self._doubler, "beaver", note=f"=> {self.cube * 4}"))
        self.phase = Phase.BEAVERED

    def resign(self, player: int, kind: OutcomeKind | str | int = 1) -> None:
        """``player`` offers to resign at a level: an outcome kind, or 1, 2, 3 for
        single/oin, gammon/mars, backgammon/home mars (koks is level 4)."""
        if self.phase not in (Phase.ROLL, Phase.PLAY):
            raise GameStateError(f"cannot resign in phase {self.phase}")
        kinds = LONG_KINDS if self.rules.is_long else BACKGAMMON_KINDS
        if isinstance(kind, int):
            if not 1 <= kind <= len(kinds):
                raise GameStateError(f"resignation level must be 1..{len(kinds)}")
            level = kinds[kind - 1]
        else:
            level = OutcomeKind(kind)
            if level not in kinds:
                raise GameStateError(f"{level} is not an outcome of this game")
        self._pending = self._outcome(1 - player, level, Ending.RESIGN)
        self._resumed = self.phase
        self.history.append(Event(player, "resign", note=str(level)))
        self.phase = Phase.RESIGNED

    @property
    def offered(self) -> Outcome | None:
        """The resignation on offer (phase ``RESIGNED``): the outcome it would
        give, its points at the cube; else None."""
        return self._pending if self.phase is Phase.RESIGNED else None

    def accept(self) -> None:
        """Accept the resignation on offer."""
        self._need(Phase.RESIGNED)
        assert self._pending is not None
        self.history.append(Event(self._pending.winner, "accept"))
        self.outcome = self._pending
        self.phase = Phase.OVER

    def reject(self) -> None:
        """Reject the resignation on offer; play goes on."""
        self._need(Phase.RESIGNED)
        assert self._pending is not None
        self.history.append(Event(self._pending.winner, "reject"))
        self._pending = None
        self.phase = self._resumed

    # -------------------------------------------------------------- helpers
    def _need(self, phase: Phase) -> None:
        if self.phase is not phase:
            raise GameStateError(f"not possible in phase {self.phase} (needs {phase})")

    @property
    def first_turn(self) -> bool:
        """Whether the side to play is on its first turn of the game (the Long
        Nardy head exception); a carried-over remainder play is not one."""
        return self.turns_played[self.on_roll] == 0 and not self._remainder_turn

    def _single(self) -> OutcomeKind:
        return OutcomeKind.OIN if self.rules.is_long else OutcomeKind.SINGLE

    def _outcome(self, winner: int, kind: OutcomeKind, ending: Ending, points: int | None = None) -> Outcome:
        if points is None:
            base = points_for(kind, self.rules)
            if self.rules.jacoby and self.is_money and self.cube == 1:
                base = points_for(self._single(), self.rules)
            points = base * self.cube
        return Outcome(winner, kind, self.cube, points, ending)

    def _finish(self, winner: int, kind: OutcomeKind, ending: Ending, points: int | None = None) -> None:
        self.outcome = self._outcome(winner, kind, ending, points)
        self.phase = Phase.OVER


@dataclass
class Match:
    """A match to ``length`` points (0 = money play: a session of games).

    It tracks the score and the Crawford game::

        >>> from nardtools import find_ruleset
        >>> m = Match(find_ruleset("backgammon"), 3)
        >>> m.score = (1, 0)
        >>> g = m.new_game(); g.start(0); g.double(); g.drop()
        >>> m.finish(g); m.score, m.new_game().crawford
        ((2, 0), True)
    """

    ruleset: Ruleset | Rules
    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford_played: bool = False
    games: list[Game] = field(default_factory=list)
    lenient: bool = False

    @property
    def rules(self) -> Rules:
        """The options in force."""
        return self.ruleset.rules if isinstance(self.ruleset, Ruleset) else self.ruleset

    def next_is_crawford(self) -> bool:
        """Whether the next game is the Crawford game."""
        if not self.length or not self.rules.has_crawford_game or self.crawford_played:
            return False
        return max(self.score) == self.length - 1 and min(self.score) < self.length - 1

    def new_game(self, seed: int | None = None) -> Game:
        """Start the next game at the current score (``seed``: its dice, see :class:`Game`)."""
        crawford = self.next_is_crawford()
        if crawford:
            self.crawford_played = True
        elif self.length and max(self.score) == self.length - 1:
            self.crawford_played = True  # post-Crawford from here on
        game = Game(self.ruleset, self.length, self.score, crawford, lenient=self.lenient, seed=seed)
        self.games.append(game)
        return game

    def finish(self, game: Game) -> None:
        """Add a finished game's points to the score."""
        if game.outcome is None:
            raise GameStateError("the game is not over")
        s = list(self.score)
        s[game.outcome.winner] += game.outcome.points
        self.score = (s[0], s[1])

    @property
    def winner(self) -> int | None:
        """The match winner, once one side has reached the length."""
        if self.length:
            for i in (0, 1):
                if self.score[i] >= self.length:
                    return i
        return None
