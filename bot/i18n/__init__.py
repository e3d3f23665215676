"""French and English text catalogs, chosen by the user's locale, then the guild's, then English.

Catalogs are JSON files ``<folder>/<lang>/<part>.json``, each a flat ``{key: message}`` map: the
shared parts :data:`CORE_PARTS` here (``bot/i18n/<lang>/``), and one part per registered game
(:attr:`bot.games.GameSpec.catalogs`, added by :func:`add_catalogs`; the four games' parts are
here too). All parts of a language are merged; a key defined twice is an error.

A **message** is one of:

- a string, a ``str.format`` template (``"{name} wins"``; format specs such as ``{points:+d}``
  work);
- a **plural object**, chosen by the CLDR plural category of a number parameter, using Babel's
  CLDR rules for the catalog's language (``babel.Locale.parse(lang).plural_form(n)``)::

      {"$plural": "count", "one": "{count} die", "other": "{count} dice"}

  Keys are CLDR categories (English: ``one``, ``other``; French: ``one``, ``many``, ``other``;
  French ``one`` covers 0 and 1, ``many`` the millions such as "1 000 000 de dés") and exact
  values ``"=0"``, ``"=1"``… which win over the category. ``other`` is required; a category
  missing at run time falls back to ``other``. A test checks that every plural object has every
  category its language's CLDR rules define;
- an **elision object**, for French ``de``/``que`` before a name: ``vowel`` is chosen when the
  parameter's text begins with a vowel or a mute h (after any markdown ``**``), else ``other``::

      {"$elide": "target", "vowel": "la pile d'{target}", "other": "la pile de {target}"}

- a **list** of messages, rendered and joined without separator, so a selector can cover one
  phrase of a sentence: ``["Pot: ", {"$plural": "cards", ...}, ", face down"]``.

Variants may themselves be any message (a plural inside a plural, an elision inside a list).
Every parameter named in a message (``{placeholders}`` and the selectors' parameters) is
reported by :func:`placeholders`; a test checks that both languages use the same ones.
"""

from __future__ import annotations

import json
import string
import unicodedata
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from babel import Locale

LANGS = ("en", "fr")
DEFAULT_LANG = "en"
_DIR = Path(__file__).parent
#: The parts every language has, whatever games are registered: ``bot/i18n/<lang>/<part>.json``.
CORE_PARTS = ("core", "terminal", "web")
#: The games' parts merged after the core ones, in registration order (:func:`add_catalogs`).
_ADDED: list[Mapping[str, Path]] = []

#: A catalog value: a template string, a selector object, or a list of messages.
Message = str | dict[str, Any] | list[Any]

SELECTORS = ("$plural", "$elide")
ELISION_VARIANTS = frozenset({"vowel", "other"})
_VOWELS = frozenset("aeiouyh")
_MARKUP = "*_~`|>\\ \u200b"


def part(name: str, folder: Path = _DIR) -> dict[str, Path]:
    """The files of the catalog part ``name`` in ``folder``, by language: ``folder/<lang>/<name>.json``.

    >>> [str(path.relative_to(_DIR)) for path in part("gang_of_dice").values()]
    ['en/gang_of_dice.json', 'fr/gang_of_dice.json']
    """
    return {lang: folder / lang / f"{name}.json" for lang in LANGS}


@cache
def catalog(lang: str) -> dict[str, Any]:
    """The merged catalog of ``lang`` (``"en"`` or ``"fr"``): key -> :data:`Message`, from the
    :data:`CORE_PARTS` and the parts added by :func:`add_catalogs`. Raises ``ValueError`` on a
    duplicate key."""
    merged: dict[str, Any] = {}
    paths = [_DIR / lang / f"{name}.json" for name in CORE_PARTS] + [p[lang] for p in _ADDED if lang in p]
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, value in data.items():
            if key in merged:
                raise ValueError(f"duplicate i18n key {key!r} in {path}")
            merged[key] = value
    return merged


def add_catalogs(files: Mapping[str, Path]) -> Callable[[], None]:
    """Merge a catalog part (``files``: its file per language, as :func:`part` gives) into
    :func:`catalog` from now on; returns the function that takes it out again. A
    :class:`Translator` made earlier keeps the catalog it read.

    Raises ``ValueError`` (and adds nothing) when one of its keys is already defined, ``OSError``
    when a file cannot be read."""
    _ADDED.append(files)
    catalog.cache_clear()
    try:
        for lang in files:
            catalog(lang)
    except Exception:
        _remove(files)
        raise

    def remove() -> None:
        _remove(files)

    return remove


def _remove(files: Mapping[str, Path]) -> None:
    """Take the part ``files`` out of the catalogs (nothing when it is not there)."""
    for i, added in enumerate(_ADDED):
        if added is files:
            del _ADDED[i]
            break
    catalog.cache_clear()


@cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


def plural_categories(lang: str) -> frozenset[str]:
    """The CLDR plural categories of ``lang`` (``{"one", "other"}`` for English,
    ``{"one", "many", "other"}`` for French)."""
    return frozenset(_locale(lang).plural_form.tags) | {"other"}


def plural_category(lang: str, n: Any) -> str:
    """The CLDR plural category of number ``n`` in ``lang`` (``"other"`` if ``n`` is not a number)."""
    if isinstance(n, bool) or not isinstance(n, (int, float, str)):
        return "other"
    try:
        value = float(n) if isinstance(n, str) and "." in n else int(n)
    except ValueError:
        return "other"
    return _plural_of(lang, value)


@lru_cache(maxsize=4096, typed=True)  # typed: 1 and 1.0 are not the same number in CLDR
def _plural_of(lang: str, value: int | float) -> str:
    """:func:`plural_category` of a parsed number, cached: evaluating babel's CLDR rules took
    about a sixth of a panel's text (a pure function of the language and the number)."""
    return str(_locale(lang).plural_form(value))


def starts_with_vowel(text: Any) -> bool:
    """True when ``text`` (a name, possibly in markdown) begins with a vowel or an h, accents
    ignored: French elides ``de`` to ``d'`` before it ("d'IA", "d'Émile", "de Bob")."""
    s = str(text).lstrip(_MARKUP)
    if not s:
        return False
    first = unicodedata.normalize("NFD", s[0])[0].lower()
    return first in _VOWELS


def selector(message: dict[str, Any]) -> tuple[str, str]:
    """The ``(kind, parameter)`` of a selector object (``("$plural", "count")``). Raises
    ``ValueError`` unless it has exactly one known ``$`` key naming a parameter."""
    keys = [k for k in message if k.startswith("$")]
    if len(keys) != 1 or keys[0] not in SELECTORS or not isinstance(message[keys[0]], str):
        raise ValueError(f"a selector object needs exactly one of {SELECTORS}: {sorted(message)}")
    return keys[0], message[keys[0]]


def placeholders(message: Message) -> set[str]:
    """Names of the parameters ``message`` uses: its ``{placeholders}`` in every variant and the
    parameters its selectors choose on.

    >>> sorted(placeholders("{name} rolled {dice} dice ({name})"))
    ['dice', 'name']
    """
    if isinstance(message, str):
        return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(message) if name}
    if isinstance(message, list):
        return set().union(*(placeholders(m) for m in message)) if message else set()
    _, param = selector(message)
    out = {param}
    for key, value in message.items():
        if not key.startswith("$"):
            out |= placeholders(value)
    return out


def problems(message: Message, lang: str) -> list[str]:
    """What is wrong with ``message`` for ``lang`` (empty when it is well formed): selector
    objects without exactly one selector, plural objects missing a CLDR category of ``lang`` or
    with a key that is neither a category of ``lang`` nor ``=N``, elision objects whose variants
    are not ``vowel`` and ``other``."""
    if isinstance(message, str):
        return []
    if isinstance(message, list):
        return [p for m in message for p in problems(m, lang)]
    if not isinstance(message, dict):
        return [f"not a message: {message!r}"]
    try:
        kind, _ = selector(message)
    except ValueError as exc:
        return [str(exc)]
    variants = {k for k in message if not k.startswith("$")}
    out: list[str] = []
    if kind == "$plural":
        cats = plural_categories(lang)
        if not cats <= variants:
            out.append(f"plural object misses {sorted(cats - variants)} for {lang}")
        bad = {k for k in variants - cats if not (k.startswith("=") and k[1:].isdigit())}
        if bad:
            out.append(f"plural object has keys {sorted(bad)} that are not CLDR categories of {lang}")
    elif variants != ELISION_VARIANTS:
        out.append(f"elision object needs exactly {sorted(ELISION_VARIANTS)}, has {sorted(variants)}")
    for key in variants:
        out += problems(message[key], lang)
    return out


def render(message: Message, lang: str, params: dict[str, Any]) -> str:
    """``message`` with ``params`` for ``lang``. Never raises: a missing parameter leaves its
    template visible, a missing variant falls back to ``other``."""
    if isinstance(message, str):
        try:
            return message.format(**params)
        except (KeyError, IndexError, ValueError, AttributeError):
            return message
    if isinstance(message, list):
        return "".join(render(m, lang, params) for m in message)
    if not isinstance(message, dict):
        return str(message)
    try:
        kind, param = selector(message)
    except ValueError:
        return str(message)
    value = params.get(param)
    if kind == "$plural":
        exact = f"={value}" if isinstance(value, int) and not isinstance(value, bool) else ""
        choice = exact if exact in message else plural_category(lang, value)
    else:
        choice = "vowel" if value is not None and starts_with_vowel(value) else "other"
    variant: Message = message[choice] if choice in message else message.get("other", "")
    return render(variant, lang, params)


def pick_lang(*locales: str | None) -> str:
    """First supported language among Discord locale strings (``"fr"``, ``"en-US"``…), else English."""
    for loc in locales:
        if loc:
            base = str(loc).split("-")[0].lower()
            if base in LANGS:
                return base
    return DEFAULT_LANG


class Translator:
    """Callable ``t(key, **params) -> str`` for one language (messages as in the module docstring).

    A missing key falls back to English, then to the key itself (never raises: a missing text
    must not break a table). A missing parameter leaves its placeholder visible.
    """

    def __init__(self, lang: str = DEFAULT_LANG) -> None:
        self.lang = lang if lang in LANGS else DEFAULT_LANG
        self._cat = catalog(self.lang)

    def __call__(self, key: str, /, **params: Any) -> str:
        if key in self._cat:
            return render(self._cat[key], self.lang, params)
        fallback = catalog(DEFAULT_LANG)
        if key in fallback:
            return render(fallback[key], DEFAULT_LANG, params)
        return key

    def has(self, key: str) -> bool:
        """True when ``key`` exists in this language."""
        return key in self._cat


def colon(lang: str) -> str:
    """The colon after a label in ``lang``: French puts a space before it ("Pot : 4"),
    English does not ("Pot: 4").

    >>> colon("fr"), colon("en")
    (' :', ':')
    """
    return " :" if lang == "fr" else ":"
