"""Gang of Dice in the terminal (:class:`bot.terminal_hooks.TerminalHooks`): the count of dice to
commit is typed, a reroll is one answer (``1 3 5``) on dice that stay in place from roll to roll,
and the log says which dice each reroll kept.

- Commit phase: a typed count (``c{n}``); committing every die of the stock asks first.
- Roll phase: the dice numbered in place, the rerolled ones marked ``*``; the answer ``1 3 5``
  becomes the codes ``u{f}``… (clear the marks), ``m{f}``… (mark those dice), ``r`` (reroll);
  ``s`` stops (asked again when the card is triggered). A single die is asked as "type 1".
- After every seat's reroll the log says which dice it kept and which it rolled again
  (:func:`reroll_split`, from the public view); after my own, the new faces are placed where
  the rerolled dice were (:func:`place_dice`), and when that roll ended my turn my dice are
  shown at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from bot.i18n import Translator
from bot.presenters.gang_of_dice import FACE_EMOJI, faces_text
from bot.terminal_hooks import QUIT, Console, TerminalHooks, parse_positions, plain
from engine.core import Event
from engine.gang_of_dice import GangOfDiceSeatView, card_triggers

__all__ = ["GangOfDiceTerminal", "place_dice", "reroll_split"]

#: Dice per line in the dice line.
_DICE_PER_LINE = 12


def place_dice(before: Sequence[int], rerolled: Iterable[int], faces: Sequence[int]) -> list[int] | None:
    """The dice after a reroll, kept in place: ``before`` (faces by position) with the
    ``rerolled`` positions replaced by the new faces (``faces`` = the whole roll, any order,
    as the engine reports it). ``None`` when ``faces`` does not contain the kept dice."""
    moved = set(rerolled)
    kept = Counter(f for i, f in enumerate(before) if i not in moved)
    new = Counter(faces)
    new.subtract(kept)
    if any(c < 0 for c in new.values()) or sum(new.values()) != len(moved):
        return None
    fresh = sorted(new.elements())
    out = list(before)
    for i in sorted(moved):
        out[i] = fresh.pop(0)
    return out


def reroll_split(event: Event, before: Any) -> tuple[list[int], list[int]] | None:
    """The kept and the rerolled faces (each sorted) of a reroll ``event`` (``god.roll`` with
    ``roll`` ≥ 2), read from the public view ``before`` it (the roller's dice and the dice
    marked for the reroll, both public); ``None`` for any other event or when ``before`` does
    not match (for example the first step after a resume)."""
    params = event.params
    if event.key != "god.roll" or int(params.get("roll", 1)) < 2 or before is None:
        return None
    seat = params.get("seat")
    marks = getattr(before, "marks", None)
    seats = getattr(before, "seats", None)
    if getattr(before, "current", None) != seat or marks is None or seats is None or not isinstance(seat, int):
        return None
    kept = Counter(seats[seat].faces)
    kept.subtract(Counter({face: n for face, n in enumerate(marks) if n}))
    rolled = Counter(int(f) for f in params.get("faces", ()))
    rolled.subtract(kept)
    if any(n < 0 for n in (*kept.values(), *rolled.values())) or rolled.total() != params.get("dice"):
        return None
    return sorted(kept.elements()), sorted(rolled.elements())


class GangOfDiceTerminal(TerminalHooks):
    """The terminal input of Gang of Dice (see the module docstring)."""

    def __init__(self) -> None:
        self.dice: list[int] | None = None  # my dice by position
        self.changed: set[int] = set()  # positions rerolled by the last roll
        self.rerolling: list[int] | None = None  # positions of the reroll just asked

    def turn(self, console: Console, view: Any, legal: Sequence[str]) -> list[str] | None:
        """The count of dice to commit is typed (``c{n}``; every die of the stock asks for a
        confirmation), and a reroll is one answer (``1 3 5`` → ``m{f}``… then ``r``) on dice
        kept in place. Returns the codes to submit, ``None`` to leave."""
        t = console.t
        assert isinstance(view, GangOfDiceSeatView)
        stock = view.me.stock
        head = [f"== {plain(t('god.panel.title'))} ==", plain(t("god.panel.stock", stock=stock))]
        if view.phase == "commit":
            self.dice, self.changed = None, set()
            commits = sorted(int(c[1:]) for c in legal if c.startswith("c"))
            lo, hi = commits[0], commits[-1]
            console.out("\n".join(head))
            while True:
                n = console.count(t("term.god.commit", min=lo, max=hi), lo, hi)
                if n is None:
                    return None
                if n == stock and not console.yes(t("term.god.all", n=n)):
                    continue
                return [f"c{n}"]
        mine = view.seats[0]
        faces = list(mine.faces)
        if self.dice is None or sorted(self.dice) != sorted(faces):
            self.dice, self.changed = faces, set()
        dice = self.dice
        bust = card_triggers(view.card.id, faces)
        lines = head + [t("term.god.roll", roll=mine.rolls, score=mine.score, n=view.rolls_left)]
        for start in range(0, len(dice), _DICE_PER_LINE):
            lines.append("  " + "  ".join(
                f"{i + 1}:{FACE_EMOJI[dice[i]]}{'*' if i in self.changed else ''}"
                for i in range(start, min(start + _DICE_PER_LINE, len(dice)))))
        if self.changed:
            lines.append(t("term.god.changed"))
        if bust:
            lines.append(plain(t("god.panel.bust")))
        console.out("\n".join(lines))
        can_reroll = view.rolls_left > 0 and any(c.startswith("m") for c in legal)
        one = "_one" if len(dice) == 1 else ""  # a single die: "type 1", not "(1-1)"
        prompt = (t(("term.god.ask_bust" if bust else "term.god.ask") + one, n=len(dice), score=mine.score)
                  if can_reroll else t("term.god.ask_stop", score=mine.score))
        while True:
            raw = console.read(prompt, lambda: console.out("\n".join(lines[len(head):])))  # "b": the dice again
            if raw is None or raw.lower() in QUIT:
                return None
            if raw.lower() in ("s", "stop"):
                if bust and not console.yes(t("term.god.stop_bust")):
                    continue
                return ["s"]
            picks = parse_positions(raw, len(dice)) if can_reroll else None
            if picks is None:
                console.out(t("term.god.bad" + one, n=len(dice)) if can_reroll else t("term.god.bad_stop"))
                continue
            unmark = [f"u{f}" for f in range(6) for _ in range(view.marks[f])]
            self.rerolling = picks
            return unmark + [f"m{dice[i]}" for i in picks] + ["r"]

    def submitted(self) -> None:
        """The reroll asked is done (or refused): the next roll is not mine to place."""
        self.rerolling = None

    def event_lines(self, event: Event, events: Sequence[Event], before: Any, t: Translator) -> list[str]:
        """Under a reroll's log line: the dice it kept and rerolled (any seat's), then, for my
        reroll, :meth:`_roll_line`."""
        lines = []
        split = reroll_split(event, before)
        if split is not None:
            lines.append("    " + self._reroll_text(*split, t))
        extra = self._roll_line(event, events, t)
        if extra:
            lines.append(extra)
        return lines

    @staticmethod
    def _reroll_text(kept: list[int], rolled: list[int], t: Translator) -> str:
        """``kept 🕴️ · rerolled 2: 2️⃣ 3️⃣``."""
        if not kept:
            return t("term.god.rerolled_all", n=len(rolled), new=faces_text(rolled))
        return t("term.god.rerolled", kept=faces_text(kept), n=len(rolled), new=faces_text(rolled))

    def _roll_line(self, event: Event, events: Sequence[Event], t: Translator) -> str | None:
        """Right after the log line of my reroll: place the new faces where the rerolled dice
        were; when that roll ended my turn (a trigger, the third roll) show my dice in place at
        once (otherwise the next panel shows them, numbered)."""
        picks = self.rerolling
        if event.key != "god.roll" or event.params.get("seat") != 0 or picks is None or self.dice is None:
            return None
        self.rerolling = None
        placed = place_dice(self.dice, picks, event.params["faces"])
        self.dice, self.changed = (placed, set(picks)) if placed is not None else (None, set())
        ended = any(e.key in ("god.trigger", "god.stop") and e.params.get("seat") == 0 for e in events)
        if not ended or placed is None:
            return None
        line = "    " + t("term.god.final") + "  " + "  ".join(
            f"{FACE_EMOJI[f]}{'*' if i in self.changed else ''}" for i, f in enumerate(placed))
        self.dice, self.changed = None, set()
        return line
