"""Collecting the figures of records: one file's games, turns and dice
(:class:`FileStats`, by the compiled core or the reference), and the archive
that folds files in as they arrive (:class:`Archive`)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from ...dice import ALL_ROLLS
from ...errors import AnalysisError, NardtoolsError
from ...notation.record import RecordError
from ...notation.replay import ReplayedMatch
from ...outcome import OutcomeKind
from ..annotate import annotate_game
from .schema import RACE_ERROR_THRESHOLD, SCHEMAS, TurnColumns
from .sinks import GroupSink, RowSink, TableSink, to_frame

if TYPE_CHECKING:
    from ..analyse import PlayerAnalysis

@dataclass
class FileStats:
    """What one file contributes: rows and running counts (picklable)."""

    path: str
    games: list[dict[str, Any]] = field(default_factory=list)
    turns: TurnColumns | None = None  # the turn rows (as columns), when asked for
    # dice: player -> Counter of unordered rolls "63" (not openings played as rolled)
    rolls: dict[str, Counter[str]] = field(default_factory=dict)
    # players: player -> running sums
    luck: dict[str, list[float]] = field(default_factory=dict)  # [n, sum]
    race: dict[str, list[float]] = field(default_factory=dict)  # [decisions, error sum, errors >= threshold]
    turns_played: Counter[str] = field(default_factory=Counter)
    # with analyse: player -> the evaluator's figures
    analysis: dict[str, PlayerAnalysis] = field(default_factory=dict)
    unreadable: str = ""
    problems: list[str] = field(default_factory=list)
    unanalysed: list[str] = field(default_factory=list)  # with analyse: games the evaluator refused, and why


def file_stats(path: str, turns: bool = False, race_points: int = 6, encoding: str | None = None,
               on_turns: Callable[[TurnColumns], None] | None = None,
               data: bytes | None = None, analyse: int | None = None,
               on_game: Callable[[], None] | None = None) -> FileStats:
    """Read and replay one file; an unreadable file gives an empty result that
    says why (a batch never stops on one file).  The compiled core does the
    whole file when it can (:func:`core_file_stats`); otherwise it is read and
    replayed here a game at a time, and with ``on_turns`` each game's turn
    rows go there as soon as they are made, so memory stays bounded by one game.
    ``analyse`` (a ply) adds the evaluator's figures (:mod:`.analyse`): the
    turns' best play, error, mark and luck, and the players' error rates.
    ``on_game`` is called for each game replayed here (at once, for a file
    the compiled core read whole).  With ``analyse`` the core's figures
    stand, and the file is replayed here only for the evaluator."""
    from ...notation.reading import open_record
    from ...notation.replay import reading_problems, replay_games

    fast = core_file_stats(path, data, turns=turns, race_points=race_points, encoding=encoding)
    out = FileStats(str(path))
    try:
        if fast is not None:
            if analyse is not None:
                _analyse_file(fast, path, data, encoding, analyse, on_game)
            elif on_game is not None:
                for _ in fast.games:
                    on_game()
            if on_turns is not None and fast.turns is not None:
                on_turns(fast.turns)
                fast.turns = None
            return fast
        record, games = open_record("<stdin>" if path == "-" else path, data, encoding)
        errors = []
        rows: list[dict[str, Any]] = []
        replayed = replay_games(record, games, lenient=True)
        for g, analysis in (_with_analysis(out, replayed, record, analyse) if analyse is not None
                            else ((g, None) for g in replayed)):
            _add_game(out, g, record, g.game.ruleset, rows if turns else None, race_points=race_points,
                      analysis=analysis)
            errors += [p for p in g.problems if p.severity == "error"]
            if on_game is not None:
                on_game()
            if on_turns is not None and rows:
                on_turns(TurnColumns.from_rows(rows))
                rows = []
        out.problems = [str(p) for p in reading_problems(record) + errors]
        if turns and on_turns is None:
            out.turns = TurnColumns.from_rows(rows)
        return out
    except RecordError as e:  # (its text starts with the path: the report names the file once)
        return FileStats(str(path), unreadable=e.bare_message)
    except OSError as e:
        return FileStats(str(path), unreadable=e.strerror or str(e))
    except (UnicodeError, NardtoolsError) as e:
        return FileStats(str(path), unreadable=str(e))
    except Exception as e:
        return FileStats(str(path), unreadable=f"internal error ({type(e).__name__}: {e}); please report it")


_OUTCOMES = {True: ("", "oin", "mars", "home-mars", "koks"), False: ("", "single", "gammon", "backgammon", "")}
_ENDINGS = (None, "bear-off", "drop", "resign")
_SOURCES = ("none", "replay", "record")


def core_file_stats(path: str, data: bytes | None = None, *, turns: bool = False,
                    race_points: int = 6, encoding: str | None = None) -> FileStats | None:
    """The statistics of a ``.mat`` file the compiled core replays without a
    doubt (the same figures as the replay here), or ``None`` (see
    :func:`~nardtools.notation.vouch.mat_file` for ``encoding``)."""
    from ...core import compiled, pack_rules
    from ...notation.vouch import mat_file
    from ..bearoff import BearoffDatabase

    read = mat_file(path, data, encoding=encoding)
    core = compiled()
    if read is None or core is None:
        return None
    data, ruleset = read
    rules = ruleset.rules
    db = BearoffDatabase.cached(race_points)
    got = core.mat_stats(data, pack_rules(rules), turns, (db.points, db.dist, db.gammon_dist, db.home_dist))
    if got is None:
        return None
    (first, second), length, games, sides, turn_bytes, text = got
    names = (first or "X", second or "O")
    path = "<stdin>" if path == "-" else str(path)
    out = FileStats(path)
    variant = "long" if rules.is_long else rules.start
    kinds = _OUTCOMES[rules.is_long]
    for (number, score0, score1, winner, kind, ending, points, record_points, cube, nturns, race_turn, race0,
         race1, d1, d2, opening_side, complete, source, warnings) in games:
        out.games.append({
            "file": path, "game": number, "variant": variant, "ruleset": ruleset.name,
            "player0": names[0], "player1": names[1], "match_length": length,
            "score0": score0, "score1": score1,
            "winner": names[winner] if winner >= 0 else None, "winner_side": winner if winner >= 0 else None,
            "outcome": kinds[kind] or None, "ending": _ENDINGS[ending],
            "points": points if points >= 0 else (record_points if record_points >= 0 else None),
            "record_points": record_points if record_points >= 0 else None, "cube": cube, "turns": nturns,
            "race_turn": race_turn if race_turn >= 0 else None,
            "race_pips0": race0 if race_turn >= 0 else None, "race_pips1": race1 if race_turn >= 0 else None,
            "opening_roll": f"{d1}{d2}" if d1 else None, "opening_side": opening_side if opening_side >= 0 else None,
            "complete": bool(complete), "result_source": _SOURCES[source], "problems": 0, "first_problem": None,
            "warnings": warnings,
        })
    for side, (nturns, rolls, luck_n, luck_sum, race_n, race_sum, race_errors) in enumerate(sides):
        who = names[side]
        if nturns:
            out.turns_played[who] += nturns
        if rolls:
            out.rolls.setdefault(who, Counter()).update(rolls)
        if luck_n:
            out.luck[who] = [luck_n, luck_sum]
        if race_n:
            out.race[who] = [race_n, race_sum, race_errors]
    if turns:
        out.turns = TurnColumns.from_core(turn_bytes, text, path, ruleset.name, names)
    return out


def file_stats_from_record(match: ReplayedMatch, *, turns: bool = False, race_points: int = 6) -> FileStats:
    """The statistics of one replayed file; see the module docstring."""
    out = FileStats(match.record.path)
    out.problems = [str(p) for p in match.errors]
    rows: list[dict[str, Any]] = []
    for g in match.games:
        _add_game(out, g, match.record, match.ruleset, rows if turns else None, race_points=race_points)
    if turns:
        out.turns = TurnColumns.from_rows(rows)
    return out


def _analyse_file(out: FileStats, path: str, data: bytes | None, encoding: str | None, ply: int,
                  on_game: Callable[[], None] | None) -> None:
    """The evaluator's figures of a file the compiled core read (``out``): its
    games replayed here, the players' figures and, where ``out`` has turn
    rows, each turn's added to them."""
    from ...notation.reading import open_record
    from ...notation.replay import replay_games

    record, games = open_record("<stdin>" if path == "-" else path, data, encoding)
    by_turn: dict[tuple[int, int], Any] = {}
    for g, analysis in _with_analysis(out, replay_games(record, games, lenient=True), record, ply):
        by_turn.update(((g.record.number, i), t) for i, t in analysis.items())
        if on_game is not None:
            on_game()
    if out.turns is not None and by_turn:
        out.turns.add_analysis(by_turn)


def _with_analysis(out: FileStats, games: Iterable[Any], record: Any, ply: int) -> Iterator[tuple[Any, dict[int, Any]]]:
    """Each replayed game with the evaluator's analysis of its turns by
    index, its players' figures added to ``out``; under rules the networks
    refuse, none, and the reason in ``out.unanalysed``."""
    from ..analyse import CubeAnalysis, Judge, PlayerAnalysis, TurnAnalysis, analyse_cube, analyse_game
    from ..evaluate import Evaluator

    made: dict[tuple[str, int], tuple[Evaluator, Judge]] = {}  # by ruleset and match length
    for g in games:
        rules, key = g.game.ruleset.rules, (g.game.ruleset.name, g.game.match_length)
        try:
            if key not in made:
                made[key] = Evaluator(rules), Judge.for_match(rules, key[1])
            ev, judge = made[key]
            turns = analyse_game(g, ev, record.names, ply=ply, judge=judge)
            cubes = analyse_cube(g, ev, record.names, judge, ply=ply)
        except AnalysisError as e:
            out.unanalysed.append(f"{record.path}: game {g.record.number}: {e}")
            yield g, {}
            continue
        entries: list[TurnAnalysis | CubeAnalysis] = [*turns, *cubes]
        for t in entries:
            out.analysis.setdefault(t.player, PlayerAnalysis(t.player)).add(t)
        yield g, {t.index: t for t in turns}


def _add_game(out: FileStats, g: Any, record: Any, ruleset: Any, rows: list[dict[str, Any]] | None, *,
              race_points: int, analysis: dict[int, Any] | None = None) -> None:
    """One replayed game's rows and counts, added to ``out`` (its turn rows to
    ``rows``, if given; with the evaluator's figures of ``analysis``)."""
    names = record.names
    rules = ruleset.rules
    variant = "long" if rules.is_long else rules.start
    plays_opening = rules.opening == "play-opening-dice"
    notes = annotate_game(g, race_points=race_points)
    outcome = g.game.outcome
    result = g.record.result
    source = "replay" if outcome is not None else ("record" if result is not None else "none")
    winner_side = outcome.winner if outcome else (result.player if result else None)
    kind = outcome.kind.value if outcome else (result.note or "") if result else ""
    race_turn = next((n for n in notes if n.race), None)
    opening = notes[0] if notes else None
    game_problems = [p for p in g.problems if p.severity == "error"]
    out.games.append({
        "file": record.path, "game": g.record.number, "variant": variant, "ruleset": ruleset.name,
        "player0": names[0], "player1": names[1], "match_length": record.length,
        "score0": g.game.score[0], "score1": g.game.score[1],  # the score played at (the results', over a header)
        "winner": names[winner_side] if winner_side is not None else None, "winner_side": winner_side,
        "outcome": kind or None,
        "ending": outcome.ending.value if outcome else None,
        "points": outcome.points if outcome else (result.value if result else None),
        "record_points": result.value if result else None,
        "cube": g.game.cube, "turns": len(notes),
        "race_turn": race_turn.index + 1 if race_turn else None,
        "race_pips0": _pips_of(race_turn, 0), "race_pips1": _pips_of(race_turn, 1),
        "opening_roll": opening.dice if opening else None,
        "opening_side": opening.player if opening else None,
        "complete": g.complete, "result_source": source, "problems": len(game_problems),
        "first_problem": game_problems[0].rule if game_problems else None,
        "warnings": len(g.problems) - len(game_problems),
    })
    for n in notes:
        who = names[n.player]
        out.turns_played[who] += 1
        if not n.dice.startswith("+") and not (plays_opening and n.index == 0):
            out.rolls.setdefault(who, Counter())[n.dice] += 1
        if n.luck is not None:
            acc = out.luck.setdefault(who, [0, 0.0])
            acc[0] += 1
            acc[1] += n.luck
        if n.race_error is not None and not n.forced:
            acc = out.race.setdefault(who, [0, 0.0, 0])
            acc[0] += 1
            acc[1] += n.race_error
            acc[2] += n.race_error >= RACE_ERROR_THRESHOLD
        if rows is not None:
            rows.append({
                "file": record.path, "ruleset": ruleset.name, "game": n.game, "turn": n.turn, "index": n.index,
                "side": n.player,
                "player": who, "dice": n.dice, "play": n.play, "pips_before": n.pips_before[0],
                "pips_opponent": n.pips_before[1], "pips_after": n.pips_after[0], "forced": n.forced,
                "legal_plays": n.legal_plays, "dice_used": n.dice_used, "dice_lost": n.dice_lost,
                "race": n.race, "race_exact": n.race_exact, "pwin_before": n.pwin_before,
                "pwin_after": n.pwin_after, "luck": n.luck, "race_error": n.race_error,
                "legal": n.legal, "rule": n.rule or None, **_analysed(analysis, n.index),
            })


def _analysed(analysis: dict[int, Any] | None, index: int) -> dict[str, Any]:
    t = analysis.get(index) if analysis else None
    if t is None:
        return {}
    return {"best": t.best, "error": t.error, "mark": t.mark, "eval_luck": t.luck}


def _pips_of(note: Any, side: int) -> int | None:
    if note is None:
        return None
    pips: tuple[int, int] = note.before.pips()
    return pips[0] if note.player == side else pips[1]


# ---------------------------------------------------------------------------
# Turn rows as columns

class Names:
    """One name per player: ``alias = name`` lines of an alias file, then
    (with ``ignore_case``) the first spelling met of names that differ only
    in case (``Llabba`` and ``llabba``)."""

    def __init__(self, aliases: dict[str, str] | None = None, *, ignore_case: bool = True) -> None:
        self.ignore_case = ignore_case
        self.aliases = {self._key(k): v for k, v in (aliases or {}).items()}
        self.seen: dict[str, str] = {}

    def _key(self, name: str) -> str:
        return name.casefold() if self.ignore_case else name

    @classmethod
    def read(cls, path: str | Path, *, ignore_case: bool = True) -> Names:
        """An alias file: ``alias = name`` lines; blank lines and ``#`` comments skipped."""
        from ...notation.sniff import read_text_file

        aliases = {}
        for lineno, line in enumerate(read_text_file(path).splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            alias, sep, name = line.partition("=")
            if not sep or not alias.strip() or not name.strip():
                raise AnalysisError(f"{path}:{lineno}:1: expected 'alias = name', got {line[:60]!r}")
            aliases[alias.strip()] = name.strip()
        return cls(aliases, ignore_case=ignore_case)

    def __call__(self, name: str | None) -> str | None:
        if name is None:
            return None
        key = self._key(name)
        if key in self.aliases:
            return self.aliases[key]
        return self.seen.setdefault(key, name)


_GAMMON_OR_MARS = frozenset(k.value for k in (OutcomeKind.GAMMON, OutcomeKind.BACKGAMMON, OutcomeKind.MARS,
                                              OutcomeKind.HOME_MARS, OutcomeKind.KOKS))


@dataclass
class Archive:
    """Files folded together as they arrive; tables on demand."""

    sink: TableSink | GroupSink | None = None  # where turn rows go (else kept, for small archives)
    keep_turns: bool = False
    #: Keep every game's row (the games table, the plots); without them the
    #: players' results are still folded in as the games come.
    keep_games: bool = True
    games_sink: RowSink | None = None  # where game rows go as they come (the games table to a file)
    games: list[dict[str, Any]] = field(default_factory=list)
    game_count: int = 0
    results: dict[str, dict[str, Any]] = field(default_factory=dict)  # each player's row of the players table
    turns: list[TurnColumns] = field(default_factory=list)
    rolls: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    luck: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0, 0.0]))
    race: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0, 0.0, 0]))
    turns_played: Counter[str] = field(default_factory=Counter)
    analysis: dict[str, PlayerAnalysis] = field(default_factory=dict)
    files: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    unanalysed: list[str] = field(default_factory=list)
    names: Names = field(default_factory=Names)

    def add(self, stats: FileStats) -> None:
        self.files += 1
        if stats.unreadable:
            self.unreadable.append((stats.path, stats.unreadable))
            return
        name = self.names
        self.problems.extend(stats.problems)
        self.unanalysed.extend(stats.unanalysed)
        for row in stats.games:
            for column in ("player0", "player1", "winner"):
                row[column] = name(row[column])
            self._fold(row)
        self.game_count += len(stats.games)
        if self.games_sink is not None:
            self.games_sink.write(sorted(stats.games, key=lambda g: g["game"]))  # (the table's order)
        elif self.keep_games:
            self.games.extend(stats.games)
        if stats.turns is not None:
            self.add_turns(stats.turns)
        for who, counter in stats.rolls.items():
            self.rolls[name(who) or who].update(counter)
        for who, (n, total) in stats.luck.items():
            self.luck[name(who) or who][0] += n
            self.luck[name(who) or who][1] += total
        for who, (n, total, errors) in stats.race.items():
            acc = self.race[name(who) or who]
            acc[0] += n
            acc[1] += total
            acc[2] += errors
        for who, n in stats.turns_played.items():
            self.turns_played[name(who) or who] += n
        for who, figures in stats.analysis.items():
            from ..analyse import PlayerAnalysis

            player = name(who) or who
            self.analysis.setdefault(player, PlayerAnalysis(player)).absorb(figures)

    def add_turns(self, turns: TurnColumns) -> None:
        """Turn rows, to the sink or kept (or dropped when no turns table is wanted)."""
        turns.rename_players(self.names)
        if self.sink is not None:
            self.sink.write(turns)
        elif self.keep_turns:
            self.turns.append(turns)

    def _fold(self, g: dict[str, Any]) -> None:
        """One game's row into its players' results."""
        for side in (0, 1):
            name = g[f"player{side}"]
            r = self.results.get(name)
            if r is None:
                r = self.results[name] = dict.fromkeys(SCHEMAS["players"], 0)
                r["player"] = name
            r["games"] += 1
            if g["winner_side"] is None:
                continue
            points = g["points"] or 0
            if g["winner_side"] == side:
                r["wins"] += 1
                r["points_won"] += points
                if g["outcome"]:
                    key = "wins_" + g["outcome"].replace("-", "_")
                    if key in r:
                        r[key] += 1
            else:
                r["losses"] += 1
                r["points_lost"] += points
                if g["outcome"] in _GAMMON_OR_MARS:
                    r["losses_gammon_or_mars"] += 1

    # ------------------------------------------------------------- tables
    def games_rows(self) -> list[dict[str, Any]]:
        return self.games

    def players_rows(self) -> list[dict[str, Any]]:
        rows = {name: dict(r) for name, r in self.results.items()}
        for name, r in rows.items():
            decided = r["wins"] + r["losses"]
            r["win_rate"] = r["wins"] / decided if decided else math.nan
            n, total = self.luck.get(name, [0, 0.0])
            r["luck_turns"], r["luck_mean"] = int(n), (total / n if n else math.nan)
            n, total, errors = self.race.get(name, [0, 0.0, 0])
            r["race_decisions"] = int(n)
            r["race_error_mean"] = total / n if n else math.nan
            r["race_error_rate"] = errors / n if n else math.nan
            r["turns"] = self.turns_played.get(name, 0)
            a = self.analysis.get(name)
            r.update(decisions=a.decisions if a else 0, error_rate=a.error_rate if a and a.decisions else math.nan,
                     errors=a.errors if a else 0, blunders=a.blunders if a else 0,
                     eval_luck=a.luck if a else math.nan, cube_decisions=a.cube_decisions if a else 0,
                     cube_error_rate=a.cube_error_rate if a and a.cube_decisions else math.nan,
                     cube_errors=a.missed_doubles + a.wrong_doubles + a.wrong_takes + a.wrong_passes if a else 0)
        return sorted(rows.values(), key=lambda r: (-r["games"], r["player"]))

    def all_rolls(self) -> Counter[str]:
        """Every player's rolls together (openings played as rolled left out)."""
        everyone: Counter[str] = Counter()
        for counter in self.rolls.values():
            everyone.update(counter)
        return everyone

    def dice_rows(self) -> list[dict[str, Any]]:
        rows = [dice_row(name, counter) for name, counter in sorted(self.rolls.items())]
        return [*rows, dice_row("(all)", self.all_rolls())]

    def frame(self, table: str) -> Any:
        """One table as a pandas DataFrame with the documented dtypes."""
        if table == "turns":  # the rows kept in memory (none when they went to a sink)
            import pandas as pd

            frames = [t.frame() for t in self.turns if len(t)]
            return pd.concat(frames, ignore_index=True) if frames else TurnColumns.from_rows([]).frame()
        builders: dict[str, Callable[[], list[dict[str, Any]]]] = {
            "games": self.games_rows, "players": self.players_rows, "dice": self.dice_rows}
        return to_frame(builders[table](), table)


def dice_row(name: str, rolls: Counter[str]) -> dict[str, Any]:
    """Face and roll counts of one player's rolls, with chi-square tests of
    fairness: faces (6 cells, 5 degrees of freedom), doubles against 1/6 (1),
    and the 21 unordered rolls against 1/36 and 2/36 (20)."""
    faces = [0] * 7
    n = sum(rolls.values())
    doubles = 0
    for roll, count in rolls.items():
        a, b = int(roll[0]), int(roll[1])
        faces[a] += count
        faces[b] += count
        doubles += count * (a == b)
    row: dict[str, Any] = {"player": name, "rolls": n, "doubles": doubles}
    for face in range(1, 7):
        row[f"face{face}"] = faces[face]
    if n:
        chi_faces = sum((faces[f] - n / 3) ** 2 / (n / 3) for f in range(1, 7))
        chi_doubles = (doubles - n / 6) ** 2 / (n / 6) + (n - doubles - 5 * n / 6) ** 2 / (5 * n / 6)
        chi_rolls = 0.0
        for r in ALL_ROLLS:
            expected = n * (1 if r.is_double else 2) / 36
            chi_rolls += (rolls.get(f"{r.high}{r.low}", 0) - expected) ** 2 / expected
        row.update(face_chi2=chi_faces, face_p_value=chi2_sf(chi_faces, 5), doubles_rate=doubles / n,
                   doubles_p_value=chi2_sf(chi_doubles, 1), roll_chi2=chi_rolls,
                   roll_p_value=chi2_sf(chi_rolls, 20))
    else:
        row.update(face_chi2=math.nan, face_p_value=math.nan, doubles_rate=math.nan,
                   doubles_p_value=math.nan, roll_chi2=math.nan, roll_p_value=math.nan)
    return row


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` (a positive integer)
    degrees of freedom, by the closed forms of the regularised gamma function.

    >>> round(chi2_sf(3.841459, 1), 4), round(chi2_sf(11.0705, 5), 4), round(chi2_sf(31.4104, 20), 4)
    (0.05, 0.05, 0.05)
    """
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(half) * math.exp(-half) / math.gamma(1.5)
    for i in range(1, (df + 1) // 2):
        total += term
        term *= half / (i + 0.5)
    return min(1.0, total)


# ---------------------------------------------------------------------------
# Running over many files

