"""What the bot says, read from its catalogs (``bot/i18n``): tests assert on a key and its
parameters, never on a copy of the wording, so a wording change touches the catalog alone.

- ``says(key, lang, **params)``: the text; with a parameter left out, the fixed text before its
  place (to look for inside a longer message);
- ``said(text, key, lang, **params)``: whether ``text`` holds the message, any parameter left out
  matching anything (``said(board.text(), "turn.reminder")``);
- ``term_says`` / ``term_said``: the same for the terminal, which prefers a text's
  ``term.alt.<key>`` variant (:class:`bot.terminal.TerminalTranslator`).

A parameter a plural or elision choice depends on must be given.
"""

from __future__ import annotations

import re
from typing import Any

import bot.games  # noqa: F401  (registers the games' catalogs)
from bot import i18n
from bot.i18n import Translator
from bot.terminal import TerminalTranslator

__all__ = ["said", "says", "term_said", "term_says"]


def _parts(key: str, lang: str, params: dict[str, Any], terminal: bool = False) -> list[str]:
    """The message rendered by the bot's translator, split where a parameter left out goes."""
    translator = TerminalTranslator(lang) if terminal else Translator(lang)
    if terminal and translator.has(f"term.alt.{key}"):
        key = f"term.alt.{key}"
    message = i18n.catalog(lang).get(key, i18n.catalog(i18n.DEFAULT_LANG).get(key))
    if message is None:
        raise KeyError(f"no catalog key {key!r}")
    missing = sorted(i18n.placeholders(message) - set(params))
    marks = {name: f"\x00{name}\x00" for name in missing}
    text = translator(key, **params, **marks)
    if not missing:
        return [text]
    return re.split("\x00[^\x00]*\x00", text)


def says(key: str, lang: str = "en", /, **params: Any) -> str:
    """The bot's text for ``key`` in ``lang``: the whole message when every parameter is given,
    else its fixed text before the first parameter left out (stripped)."""
    parts = _parts(key, lang, params)
    return parts[0] if len(parts) == 1 else parts[0].strip()


def said(text: str, key: str, lang: str = "en", /, **params: Any) -> bool:
    """Whether ``text`` holds the message ``key`` in ``lang`` (parameters left out match any text)."""
    pattern = ".*?".join(re.escape(p) for p in _parts(key, lang, params))
    return re.search(pattern, text, re.S) is not None


def term_says(key: str, lang: str = "en", /, **params: Any) -> str:
    """:func:`says` as the terminal shows it."""
    parts = _parts(key, lang, params, terminal=True)
    return parts[0] if len(parts) == 1 else parts[0].strip()


def term_said(text: str, key: str, lang: str = "en", /, **params: Any) -> bool:
    """:func:`said` as the terminal shows it."""
    pattern = ".*?".join(re.escape(p) for p in _parts(key, lang, params, terminal=True))
    return re.search(pattern, text, re.S) is not None
