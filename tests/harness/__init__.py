"""Project-owned offline Discord test harness (see README.md in this folder).

Tests import from here only::

    from tests.harness import DiscordWorld
"""

from ._patches import NetworkAccessAttempted
from .errors import (
    BotError,
    BotErrorsReported,
    CommandNotVisible,
    HarnessError,
    ImpossibleAction,
    SettleTimeout,
    UnansweredInteraction,
)
from .journal import Comp, Msg, Version
from .world import Channel, DiscordWorld, Guild, Member, ModalField, ModalSpec, Outcome

__all__ = [
    "BotError",
    "BotErrorsReported",
    "Channel",
    "CommandNotVisible",
    "Comp",
    "DiscordWorld",
    "Guild",
    "HarnessError",
    "ImpossibleAction",
    "Member",
    "ModalField",
    "ModalSpec",
    "Msg",
    "NetworkAccessAttempted",
    "Outcome",
    "SettleTimeout",
    "UnansweredInteraction",
    "Version",
]
