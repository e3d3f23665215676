"""French and English text catalogs, chosen by the user's locale, then the guild's, then English.

Catalogs are JSON files ``bot/i18n/<lang>/<part>.json`` (one part per game plus ``core``), each a
flat ``{key: template}`` map using ``str.format`` placeholders (``{name}``). All parts of a
language are merged; a key defined twice is an error. A test checks that both languages have the
same keys and the same placeholders.
"""

from __future__ import annotations

import json
import string
from functools import lru_cache
from pathlib import Path
from typing import Any

LANGS = ("en", "fr")
DEFAULT_LANG = "en"
_DIR = Path(__file__).parent


@lru_cache(maxsize=None)
def catalog(lang: str) -> dict[str, str]:
    """The merged catalog of ``lang`` (``"en"`` or ``"fr"``). Raises ``ValueError`` on a duplicate key."""
    merged: dict[str, str] = {}
    for path in sorted((_DIR / lang).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, value in data.items():
            if key in merged:
                raise ValueError(f"duplicate i18n key {key!r} in {path}")
            merged[key] = value
    return merged


def placeholders(template: str) -> set[str]:
    """Names of the ``{placeholders}`` in ``template``.

    >>> sorted(placeholders("{name} rolled {dice} dice ({name})"))
    ['dice', 'name']
    """
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def pick_lang(*locales: str | None) -> str:
    """First supported language among Discord locale strings (``"fr"``, ``"en-US"``…), else English.

    >>> pick_lang("de", "fr", "en-US"), pick_lang("en-GB"), pick_lang(None, "")
    ('fr', 'en', 'en')
    """
    for loc in locales:
        if loc:
            base = str(loc).split("-")[0].lower()
            if base in LANGS:
                return base
    return DEFAULT_LANG


class Translator:
    """Callable ``t(key, **params) -> str`` for one language.

    A missing key falls back to English, then to the key itself (never raises: a missing text
    must not break a table). A missing parameter leaves its placeholder visible.
    """

    def __init__(self, lang: str = DEFAULT_LANG) -> None:
        self.lang = lang if lang in LANGS else DEFAULT_LANG
        self._cat = catalog(self.lang)

    def __call__(self, key: str, /, **params: Any) -> str:
        template = self._cat.get(key) or catalog(DEFAULT_LANG).get(key) or key
        try:
            return template.format(**params)
        except (KeyError, IndexError, ValueError):
            return template

    def has(self, key: str) -> bool:
        """True when ``key`` exists in this language."""
        return key in self._cat
