"""What the bot says, read from its catalogs (``bot/i18n``): tests assert on a key and its
parameters, never on a copy of the wording, so a wording change touches the catalog alone.

- ``says(key, lang, **params)``: the text; with a parameter left out, the fixed text before its
  place (to look for inside a longer message);
- ``said(text, key, lang, **params)``: whether ``text`` holds the message, any parameter left out
  matching anything (``said(board.text(), "turn.reminder")``).

A parameter a plural or elision choice depends on must be given.
"""

from __future__ import annotations

import re
from typing import Any

from bot import i18n
from bot.i18n import Translator

__all__ = ["said", "says"]


def _parts(key: str, lang: str, params: dict[str, Any]) -> list[str]:
    """The message rendered by the bot's translator, split where a parameter left out goes."""
    message = i18n.catalog(lang).get(key, i18n.catalog(i18n.DEFAULT_LANG).get(key))
    if message is None:
        raise KeyError(f"no catalog key {key!r}")
    missing = sorted(i18n.placeholders(message) - set(params))
    marks = {name: f"\x00{name}\x00" for name in missing}
    text = Translator(lang)(key, **params, **marks)
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
