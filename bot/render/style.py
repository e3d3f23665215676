"""The look shared by every game's pictures: sizes, palette, fonts and the renderer's own labels.

- **Size**: every picture is :data:`WIDTH` px wide (its height follows its content). Discord
  shows an embed image about 400 px wide, so a font of :data:`SMALL` px (the smallest we use)
  appears at 14 px there.
- **Palette**: the Okabe–Ito colours, which stay distinguishable for the common colour-vision
  deficiencies; colour never carries meaning alone: seats carry their names, Moonshine colours a
  shape (:data:`COLOUR_SHAPES`), warning cards their colour's name.
- **Fonts**: Source Sans Pro from the ``font-source-sans-pro`` pip package (SIL OFL 1.1), loaded
  from the installed package: nothing is downloaded at run time; it covers French accents.
- **Labels**: the few words only pictures need (``Legend``, ``Trick``…) live here in English and
  French (:func:`label`); everything else comes from the game catalogs (``bot/i18n``).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from PIL import ImageFont

from bot.i18n import Translator, plural_category

#: Width of every picture in px.
WIDTH = 800
#: Outer margin in px.
MARGIN = 24
#: Font sizes in px: SMALL is the minimum (14 px at 400 px wide).
SMALL, BODY, HEAD, TITLE = 28, 30, 34, 40

Colour = tuple[int, int, int]

BG: Colour = (246, 241, 231)  # paper
INK: Colour = (28, 28, 30)
MUTED: Colour = (92, 92, 100)
PANEL: Colour = (255, 255, 255)
LINE: Colour = (196, 188, 172)
TITLE_BG: Colour = (40, 44, 62)
TITLE_INK: Colour = (255, 255, 255)
FELT: Colour = (226, 236, 228)

# Okabe–Ito palette.
ORANGE: Colour = (230, 159, 0)
SKY: Colour = (86, 180, 233)
GREEN: Colour = (0, 158, 115)
YELLOW: Colour = (240, 228, 66)
BLUE: Colour = (0, 114, 178)
VERMILLION: Colour = (213, 94, 0)
PURPLE: Colour = (204, 121, 167)
BLACK: Colour = (0, 0, 0)

#: Highlight of legal choices in panels (a thick blue frame plus a "✓"-like tag).
LEGAL: Colour = BLUE
#: Seat accents (always drawn next to the seat's name).
SEAT_COLOURS: tuple[Colour, ...] = (BLUE, VERMILLION, GREEN, ORANGE, PURPLE, SKY)

#: Moonshine Client colours: fill and the shape drawn on them (colour-blind safe).
CLIENT_COLOURS: dict[str, Colour] = {
    "green": GREEN, "pink": PURPLE, "purple": (110, 70, 160), "yellow": YELLOW, "red": VERMILLION,
}
COLOUR_SHAPES: dict[str, str] = {
    "green": "triangle", "pink": "circle", "purple": "diamond", "yellow": "square", "red": "cross",
}

_FONT_FILES = {"regular": "SourceSansPro-Regular.ttf", "bold": "SourceSansPro-Bold.ttf"}


def _font_dir() -> str:
    import font_source_sans_pro  # type: ignore[import-untyped]

    return str(font_source_sans_pro.font_directory)


@lru_cache(maxsize=32)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The picture font at ``size`` px (never below :data:`SMALL`). Raises ``OSError`` when the
    font package is missing (the callers turn that into "no picture")."""
    path = os.path.join(_font_dir(), _FONT_FILES["bold" if bold else "regular"])
    return ImageFont.truetype(path, max(size, SMALL), layout_engine=ImageFont.Layout.BASIC)


_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "legend": "Legend",
        "round": "Round {round}/{rounds}",
        "stock": "Your stock: {n} dice", "stock_one": "Your stock: {n} die",
        "table": "On the table: {n} dice", "table_one": "On the table: {n} die",
        "carried": "carried over {n} · bonus {b}",
        "best": "Best: {name} {score}",
        "committed": "{n} dice", "committed_one": "{n} die",
        "score": "score {n}",
        "rolls_left": "rolls left: {n}",
        "marked": "marked for reroll",
        "boss": "boss (worth 0)",
        "dice_count": "dice committed / in stock",
        "your_turn": "Your turn",
        "legal": "you may choose",
        "waiting": "Waiting for {name}",
        "game_over": "Game over",
        "winner": "Winner: {names}",
        "bid": "Bid",
        "trump": "Trumps",
        "trick": "Trick on the table",
        "led": "led",
        "tricks": "tricks {n}",
        "tiles": "{n} tiles", "tiles_one": "{n} tile",
        "points": "{n} pts",
        "target": "first to {n}",
        "hand": "Your hand",
        "round_n": "Round {n}",
        "round_of": "Round {n}/{cap}",
        "round_past_cap": "Round {n} · past the {cap}-round cap: finishing the lap",
        "round_cap_done": "Round {n} · past the {cap}-round cap: lap finished",
        "reroll_framed": "Reroll framed dice (choose in the menu)",
        "higher": "higher", "lower": "lower",
        "earlier": "Earlier: {cards}",
        "pot_of": "Pot: {cards}",
        "compared": "value compared this round",
        "play_framed": "Play one of the framed tiles (follow suit if you can).",
        "widow": "widow",
        "unplayable": "not playable now",
        "last_trick": "Last trick",
        "pile": "{n} cards", "pile_one": "{n} card",
        "out": "out",
        "out_in": "out in round {n}",
        "pot": "Pot: {n} cards", "pot_one": "Pot: {n} card",
        "your_card": "Your top card",
        "chooser": "chooses",
        "announce": "{char}: {dir}",
        "collector": "Collector",
        "revealed": "Revealed this round",
        "last_round": "Round {n} result",
        "deck": "Deck {n} · discard {d}",
        "goal": "Goal: {n} points",
        "dice": "Dice",
        "clients": "Clients",
        "validated": "Validated",
        "none": "none",
        "speakeasy": "Speakeasy",
        "moon": "Moon token",
        "moons": "Moon tokens",
        "food": "Food", "music": "Music", "drink": "Drink", "any": "any resource",
        "reroll": "reroll", "draw": "card draw", "client": "Client card", "blue_die": "blue die",
        "unrolled_blue": "Blue die not rolled (no access)",
        "unrolled_orange": "Orange die not rolled (no access)",
        "unrolled_both": "Blue and orange dice not rolled (no access)",
        "orange_die": "orange die", "discount": "Moon discount", "majority": "majority colour",
        "silhouette": "silhouette", "points_icon": "points", "cost": "cost", "empty_space": "empty space",
        "colour_green": "green", "colour_pink": "pink", "colour_purple": "purple", "colour_yellow": "yellow",
        "colour_red": "red",
        "slot": "Moon spaces: filled / empty, then the bonus they give",
        "instant": "instant effect",
        "chosen": "has chosen",
        "to_choose": "choosing",
        "active": "active player",
        "pending": "to do: {what}",
    },
    "fr": {
        "legend": "Légende",
        "round": "Manche {round}/{rounds}",
        "stock": "Votre réserve : {n} dés", "stock_one": "Votre réserve : {n} dé",
        "table": "Sur la table : {n} dés", "table_one": "Sur la table : {n} dé",
        "carried": "reportés {n} · bonus {b}",
        "best": "Meilleur : {name} {score}",
        "committed": "{n} dés", "committed_one": "{n} dé",
        "score": "score {n}",
        "rolls_left": "jets restants : {n}",
        "marked": "marqués pour relancer",
        "boss": "le boss (vaut 0)",
        "dice_count": "dés engagés / en réserve",
        "your_turn": "À vous de jouer",
        "legal": "choix possible",
        "waiting": "On attend {name}",
        "game_over": "Partie terminée",
        "winner": "Gagnant : {names}",
        "bid": "Enchère",
        "trump": "Atouts",
        "trick": "Pli sur la table",
        "led": "entame",
        "tricks": "plis {n}",
        "tiles": "{n} tuiles", "tiles_one": "{n} tuile",
        "points": "{n} pts",
        "target": "premier à {n}",
        "hand": "Votre main",
        "round_n": "Manche {n}",
        "round_of": "Manche {n}/{cap}",
        "round_past_cap": "Manche {n} · limite de {cap} passée : fin du tour de table",
        "round_cap_done": "Manche {n} · limite de {cap} passée : tour de table fini",
        "reroll_framed": "Relancer des dés encadrés (au menu)",
        "higher": "plus haut", "lower": "plus bas",
        "earlier": "Avant\u00a0: {cards}",
        "pot_of": "Pot : {cards}",
        "compared": "valeur comparée cette manche",
        "play_framed": "Jouez une des tuiles encadrées (fournissez si vous le pouvez).",
        "widow": "talon",
        "unplayable": "injouable pour l'instant",
        "last_trick": "Dernier pli",
        "pile": "{n} cartes", "pile_one": "{n} carte",
        "out": "éliminé",
        "out_in": "éliminé manche {n}",
        "pot": "Pot : {n} cartes", "pot_one": "Pot : {n} carte",
        "your_card": "Votre carte du dessus",
        "chooser": "choisit",
        "announce": "{char} : {dir}",
        "collector": "Collectionneur",
        "revealed": "Révélées cette manche",
        "last_round": "Résultat de la manche {n}",
        "deck": "Pioche {n} · défausse {d}",
        "goal": "But : {n} points",
        "dice": "Dés",
        "clients": "Clients",
        "validated": "Validés",
        "none": "aucun",
        "speakeasy": "Speakeasy",
        "moon": "jeton Lune",
        "moons": "jetons Lune",
        "food": "Nourriture", "music": "Musique", "drink": "Boisson", "any": "ressource au choix",
        "reroll": "relance", "draw": "pioche", "client": "carte Client", "blue_die": "dé bleu",
        "unrolled_blue": "Dé bleu non lancé (pas d'accès)",
        "unrolled_orange": "Dé orange non lancé (pas d'accès)",
        "unrolled_both": "Dés bleu et orange non lancés (pas d'accès)",
        "orange_die": "dé orange", "discount": "réduction Lune", "majority": "couleur majoritaire",
        "silhouette": "silhouette", "points_icon": "points", "cost": "coût", "empty_space": "emplacement vide",
        "colour_green": "vert", "colour_pink": "rose", "colour_purple": "violet", "colour_yellow": "jaune",
        "colour_red": "rouge",
        "slot": "Emplacements Lune : pleins / vides, puis le bonus qu'ils donnent",
        "instant": "effet immédiat",
        "chosen": "a choisi",
        "to_choose": "choisit",
        "active": "joueur actif",
        "pending": "à faire : {what}",
    },
}


def label(t: Translator, key: str, /, **params: object) -> str:
    """A picture-only label in ``t``'s language (English when missing); with a count ``n`` whose
    plural category is ``one`` (English 1, French 0 and 1), its ``<key>_one`` form when there is
    one ("1 card", not "1 cards")."""
    lang = t.lang if t.lang in _LABELS else "en"
    if "n" in params and plural_category(lang, params["n"]) == "one" and f"{key}_one" in _LABELS[lang]:
        key = f"{key}_one"
    template = _LABELS[lang].get(key) or _LABELS["en"].get(key) or key
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        return template


_MARKUP = re.compile(r"\*\*|__|~~|`|\*")
# Emoji and pictographs (the font has none of them): drop them from catalog texts.
_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D\u20E3\u2190-\u21FF]")


_SPACES = re.compile(r"[ \t\r\n\f\v]+")


def plain(text: str) -> str:
    """A catalog text without Discord markdown and emoji, spaces collapsed (a no-break space
    stays: it keeps "10\u00a0s" on one line)."""
    return _SPACES.sub(" ", _EMOJI.sub("", _MARKUP.sub("", text))).strip(" ")
