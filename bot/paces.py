"""Paces: how long a member has for a turn at a table, and what the deadline does.

A table's pace is chosen in its lobby (the server's default pace first, ``/settings``) and stored
with it (:attr:`storage.base.TableRow.pace`). What each pace does (the rules page of ``/help``
says the same, ``help.paces``):

=================  ===========  ============================  ====================================
pace               a turn       reminders                     at the timeout
=================  ===========  ============================  ====================================
``live``           60 s         at half time                  the AI plays the turn; two timeouts
                                                              in a row make the member away
``normal``         the bot's    at ``REMINDER_FRACTION``      as ``live``
                   ``TURN_TIMEOUT_SECONDS`` (5 min)
``relaxed``        1 hour       at half time and at 90 %      the AI plays the timed-out turn only
                                                              (the member is never made away)
``correspondence`` 24 hours     at half time and at 90 %      as ``relaxed``; a member may mute
                                                              the turn pings of the table
=================  ===========  ============================  ====================================

A table stored before paces existed (``pace`` ``None``) keeps the ``normal`` behaviour. A
terminal table has no turn timer, so its pace does nothing there.
"""

from __future__ import annotations

from dataclasses import dataclass

from storage.base import PACES, Pace

__all__ = ["PACES", "Pace", "PaceRule", "check_pace", "pace_rule"]


@dataclass(frozen=True, slots=True)
class PaceRule:
    """What a pace means: ``seconds`` a member has for a turn, the ``reminders`` (fractions of
    ``seconds``, increasing, each below 1) and whether two timeouts in a row make the member
    ``away`` (the AI then plays their seat until they come back)."""

    seconds: float
    reminders: tuple[float, ...]
    away: bool

    @property
    def slow(self) -> bool:
        """True for the paces where a member is never made away (relaxed, correspondence)."""
        return not self.away


_FIXED: dict[str, PaceRule] = {
    "live": PaceRule(60.0, (0.5,), True),
    "relaxed": PaceRule(3600.0, (0.5, 0.9), False),
    "correspondence": PaceRule(86400.0, (0.5, 0.9), False),
}


def pace_rule(pace: Pace | str | None, *, turn_timeout: float = 300.0, reminder_fraction: float = 0.5) -> PaceRule:
    """The rule of ``pace``: ``normal``, ``None`` (a table stored before paces) and an unknown
    name take the bot's own ``turn_timeout`` and ``reminder_fraction``.

    >>> pace_rule("correspondence")
    PaceRule(seconds=86400.0, reminders=(0.5, 0.9), away=False)
    >>> pace_rule(None, turn_timeout=120, reminder_fraction=0.25)
    PaceRule(seconds=120, reminders=(0.25,), away=True)
    """
    return _FIXED.get(pace or "normal") or PaceRule(turn_timeout, (reminder_fraction,), True)


def check_pace(pace: str) -> Pace:
    """``pace`` when it is one of :data:`PACES`; raises ``ValueError`` otherwise.

    >>> check_pace("relaxed")
    'relaxed'
    """
    for known in PACES:
        if pace == known:
            return known
    raise ValueError(f"unknown pace {pace!r}; the paces are {', '.join(PACES)}")
