"""The terminal mode (bot/terminal.py): every game plays to the end through the table services, and
each habit of the terminal has its test (typed counts, one-answer rerolls, dice kept in
place, confirmation before leaving and ``play --resume``, forced moves, AI pacing, terminal
wording, no block printed twice). Input is scripted; pacing is 0 (no timing)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import engine.gang_of_dice.rules as god_rules
from bot.games import GAMES
from bot.presenters.gang_of_dice_terminal import place_dice
from bot.terminal import TerminalGame, TerminalTranslator, keyed, parse_int, parse_positions, value_key
from bot.ui import Block, Button, Field, Panel
from engine.gang_of_dice import scripted_setup
from storage.sqlite import SqliteStore
from tests.catalog import term_said, term_says

DISCORD_WORDS = re.compile(r"button|bouton|\bbold\b|\bgras\b|ephemeral|éphémère|\*\*|＋|－|click|cliqu", re.I)


class Player:
    """Types answers: first some garbage, then random numbers (bounded, so a bug cannot hang)."""

    def __init__(self, seed: int, limit: int = 20000) -> None:
        self.rng = random.Random(seed)
        self.asked = 0
        self.limit = limit
        self.script = ["", "banana", "0", "999"]

    def __call__(self, prompt: str) -> str:
        self.asked += 1
        if self.asked > self.limit:
            raise AssertionError("the terminal game did not end")
        if self.script:
            return self.script.pop(0)
        if "(y/n)" in prompt or "(o/n)" in prompt:  # anything else is asked again
            return self.rng.choice(("y", "n"))
        m = re.search(r"\((\d+)-(\d+)", prompt)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            return str(self.rng.randint(lo, min(hi, lo + 5)))
        m = re.search(r"\(([0-9a-z]+(?:, [0-9a-z]+)+);", prompt)
        if m:
            return self.rng.choice(m.group(1).split(", "))
        if "spaces" in prompt or "espaces" in prompt:
            return " ".join(str(self.rng.randint(1, 4)) for _ in range(self.rng.randint(1, 3)))
        return str(self.rng.randint(1, 12))


class Script:
    """Answers from a list, recording every prompt and line; then ``q``, and ``y`` to a yes/no
    question (``o/n`` in French: leave, or go ahead)."""

    def __init__(self, answers: list[str | type[BaseException]]) -> None:
        self.answers = list(answers)
        self.lines: list[str] = []
        self.prompts: list[str] = []

    def ask(self, prompt: str) -> str:
        self.prompts.append(prompt)
        self.lines.append(f"? {prompt}")
        if len(self.prompts) > 500:
            raise AssertionError("too many prompts")
        answer = self.answers.pop(0) if self.answers else ("y" if "(y/n)" in prompt or "(o/n)" in prompt else "q")
        if isinstance(answer, type):
            raise answer()
        self.lines.append(f"> {answer}")
        return answer

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def game(key: str, players: int, tmp_path: Path, script: Script, **kw: object) -> TerminalGame:
    return TerminalGame(key, players, seed=11, db_path=tmp_path / "t.db", ask=script.ask,
                        out=script.lines.append, pace=0, **kw)  # type: ignore[arg-type]


@pytest.fixture
def god_script(monkeypatch):
    """Gang of Dice with card sum13 (black) first, the human first, and the human's rolls scripted
    through the engine's chance helper (other seats roll as usual)."""
    rolls: list[tuple[int, ...]] = []
    g = GAMES["gang-of-dice"].game
    stocks: list[tuple[int, ...] | None] = [None]

    def setup(seed, players, options=None):
        return scripted_setup(players, cards=["sum13"], first=0, stocks=stocks[0], seed=seed)

    real = god_rules.roll_faces

    def roll(state, n):
        if state.current == 0 and rolls:
            faces = rolls.pop(0)
            assert len(faces) == n
            return faces
        return real(state, n)

    monkeypatch.setattr(g, "setup", setup)
    monkeypatch.setattr(god_rules, "roll_faces", roll)
    return rolls, stocks


async def action_log(path: Path, table_id: int = 1) -> list[str]:
    db = await SqliteStore.open(path)
    try:
        return [codes[0] for _, codes, _ in await db.action_log(table_id) if 0 in codes]
    finally:
        await db.close()


# --- every game, to the end -------------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(GAMES))
async def test_terminal_game_plays_to_the_end(key, tmp_path):
    g = GAMES[key].game
    players = min(max(g.min_players, 3), g.max_players)
    lines: list[str] = []
    prompts: list[str] = []
    player = Player(seed=3)

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        lines.append("\0")  # a prompt: the screen between two of them is one chunk
        return player(prompt)

    tg = TerminalGame(key, players, seed=11, lang="en", db_path=tmp_path / "t.db", ask=ask, out=lines.append, pace=0)
    assert await tg.run() == 0
    text = "\n".join(lines)
    assert term_said(text, "result.title")
    assert re.search(r"Please (type a number from 1 to|enter a whole number from|type one of)", text)
    # 7. no Discord wording anywhere in a whole game
    assert not DISCORD_WORDS.search(text + "\n".join(prompts)), DISCORD_WORDS.findall(text)
    # 8. no block printed twice between two prompts
    for chunk in text.split("\0"):
        heads = [line for line in chunk.splitlines() if re.fullmatch(r"[^ •🔒].*:", line)]
        assert len(heads) == len(set(heads)), heads


@pytest.mark.parametrize("key", ["gang-of-dice", "three-player-moon"])
async def test_a_watched_game_seats_only_ai_players_and_shows_the_public_table(key, tmp_path):
    lines: list[str] = []

    def ask(prompt: str) -> str:
        raise AssertionError(f"a watched game asks nothing: {prompt!r}")

    players = 3
    tg = TerminalGame(key, players, seed=11, lang="en", db_path=tmp_path / "t.db", ask=ask, out=lines.append,
                      pace=0, ai_levels=["normal", "easy", "normal"], watch=True)
    assert await tg.run() == 0
    text = "\n".join(lines)
    assert term_said(text, "result.title")
    assert not any(line.lstrip().startswith("🔒") for line in lines)  # no seat's private events
    db = await SqliteStore.open(tmp_path / "t.db")
    try:
        seats = await db.seats(1)
    finally:
        await db.close()
    assert [(s.is_ai, s.ai_level) for s in seats] == [(True, "normal"), (True, "easy"), (True, "normal")]


# --- 1. counts are typed numbers ------------------------------------------------------------------------
async def test_a_count_is_a_typed_number_not_a_menu_entry(tmp_path, god_script):
    rolls, _ = god_script
    rolls.append((0, 1))
    s = Script(["48", "n", "2"])
    tg = game("gang-of-dice", 3, tmp_path, s)
    assert await tg.run() == 0
    assert s.prompts[0] == term_says("term.god.commit", min=1, max=48)
    assert s.prompts[1] == term_says("term.god.all", n=48)  # every die of the stock asks first
    assert s.prompts[2] == s.prompts[0]
    assert term_says("god.commit", seat=term_says("term.you"), dice=2) in s.text
    assert (await action_log(tmp_path / "t.db"))[0] == "c2"
    assert not re.search(r"^\s+\d+\) ", s.text.split("puts 2")[0], re.M)  # no numbered menu before


async def test_number_valued_choices_are_typed_as_their_value(tmp_path):
    # Three-Player Moon bids: the menu keys are the bids themselves (menu numbers 2, 3 are refused)
    asked: list[str] = []
    lines: list[str] = []
    bid: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        m = re.search(r"\((0(?:, \d+)+);", prompt)
        if m and not bid:
            keys = m.group(1).split(", ")
            if not any("Please type one of" in line for line in lines):
                return "3"
            bid.append(keys[1])
            return keys[1]
        return "y" if "(y/n)" in prompt else "q"

    tg = TerminalGame("three-player-moon", 3, seed=11, db_path=tmp_path / "t.db", ask=ask, out=lines.append, pace=0)
    assert await tg.run() == 0
    text = "\n".join(lines)
    assert term_said(text, "term.bad_key")
    assert term_says("tpm.bid", seat=term_says("term.you"), bid=bid[0]) in text
    assert re.search(rf"^\s+{bid[0]}\) Bid {bid[0]}$", text, re.M)


def test_value_keys():
    assert [value_key("three-player-moon", c) for c in ("b0", "b6", "b21", "t6", "tD", "tN", "p64", "d64")] == [
        "0", "6", "21", "6", "d", "n", None, None]
    assert value_key("shop-battle", "b6") is None
    from bot.terminal import menu

    panel = Panel(Block("x"), ((Button("Pass", "b0"), Button("Bid 6", "b6"), Button("Moon", "b21")),))
    assert [c.key for c in keyed("three-player-moon", menu(panel))] == ["0", "6", "21"]
    mixed = Panel(Block("x"), ((Button("Pass", "b0"), Button("[6|4]", "p64")),))
    assert [c.key for c in keyed("three-player-moon", menu(mixed))] == ["1", "2"]


# --- 2. several dice in one reroll answer, 3. dice kept in place --------------------------------------
async def test_a_reroll_of_several_dice_is_one_answer_and_the_dice_stay_in_place(tmp_path, god_script):
    rolls, _ = god_script
    rolls += [(2, 0, 1, 0, 1, 0), (5, 4, 3), (0,)]
    s = Script(["6", "1 3 5", "s", "n", "1"])
    tg = game("gang-of-dice", 3, tmp_path, s)
    assert await tg.run() == 0
    # first roll: sorted once, numbered by position
    assert "  1:🕴️  2:🕴️  3:🕴️  4:1️⃣  5:1️⃣  6:2️⃣" in s.text
    # 6 marks would have taken 4 prompts (3 marks, reroll): one answer did it
    assert (await action_log(tmp_path / "t.db"))[:5] == ["c6", "m0", "m0", "m1", "r"]
    assert s.prompts[1].startswith("Dice to reroll") and s.prompts[2].startswith("Dice to reroll (1-6")
    # the kept dice did not move; the new faces (3, 4, 5) took the rerolled places, marked
    assert "  1:3️⃣*  2:🕴️  3:4️⃣*  4:1️⃣  5:5️⃣*  6:2️⃣" in s.text
    assert term_says("term.god.changed") in s.text
    # 15 ≥ 13 triggers the black card: stopping asks first ("n"); then die 1 is rerolled to 🕴️,
    # the third roll, which ends the turn: the dice are shown in place once more
    assert s.prompts[3] == term_says("term.god.stop_bust")
    assert ("(roll 3/3), the dice now: 🕴️ 🕴️ 1️⃣ 2️⃣ 4️⃣ 5️⃣\n    ↳ kept 🕴️ 1️⃣ 2️⃣ 4️⃣ 5️⃣ · rerolled 1 die: 🕴️\n"
            "    Your dice:  🕴️*  🕴️  4️⃣  1️⃣  5️⃣  2️⃣") in s.text
    assert term_said(s.text, "god.stop", seat=term_says("term.you"))
    # the log says which dice each reroll kept and which it rolled again
    assert "(roll 2/3), the dice now: 🕴️ 1️⃣ 2️⃣ 3️⃣ 4️⃣ 5️⃣\n    ↳ kept 🕴️ 1️⃣ 2️⃣ · rerolled 3 dice: 3️⃣ 4️⃣ 5️⃣" in s.text


FACE = {"🕴️": 0, "1️⃣": 1, "2️⃣": 2, "3️⃣": 3, "4️⃣": 4, "5️⃣": 5}


def _faces(text: str) -> list[int]:
    return sorted(FACE[f] for f in text.split())


async def test_every_reroll_in_the_log_says_what_was_kept_and_what_was_rolled_again(tmp_path, god_script):
    rolls, _ = god_script
    rolls += [(1,), (4,)]  # my one die: the prompt says "type 1", not "(1-1)"
    s = Script(["1", "1", "s"])
    tg = game("gang-of-dice", 3, tmp_path, s)
    assert await tg.run() == 0
    assert s.prompts[1] == term_says("term.god.ask_one", score=1)
    assert "(1-1" not in s.text
    assert "(roll 2/3), the dice now: 4️⃣\n    ↳ rerolled the only die: 4️⃣" in s.text
    lines = s.lines
    rerolls = [i for i, line in enumerate(lines) if re.search(r"\(roll [23]/3\), the dice now: ", line)]
    assert len(rerolls) > 1, "the AI players reroll too"
    for i in rerolls:  # every seat's: the kept and the new dice make the whole roll
        n = int(re.search(r"rolls (\d+) d", lines[i]).group(1))
        whole = _faces(lines[i].split("/3), the dice now: ")[1])
        m = re.fullmatch(r"    ↳ (?:kept (.+) · )?rerolled (?:(\d+) dice|1 die|the only die|all (\d+) dice): (.+)", lines[i + 1])
        assert m, lines[i + 1]
        kept, new = _faces(m.group(1) or ""), _faces(m.group(4))
        assert len(new) == n and sorted(kept + new) == whole


def test_positions_and_placing():
    assert parse_positions("1 3 5", 6) == [0, 2, 4]
    assert parse_positions("5,1", 6) == [0, 4]
    assert parse_positions("all", 3) == [0, 1, 2]
    for bad in ("", "0", "7", "1 1", "x", "-1", "²"):
        assert parse_positions(bad, 6) is None
    assert place_dice([3, 0, 4], [1], [0, 3, 4]) == [3, 0, 4]  # rerolled to the same face
    assert place_dice([3, 0, 4], [0, 2], [0, 1, 5]) == [1, 0, 5]
    assert place_dice([3, 0, 4], [0], [1, 1, 1]) is None  # the kept dice are not in the roll
    assert parse_int("12") == 12
    assert parse_int("²") is None and parse_int("1" * 5000) is None and parse_int("-3") is None


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_yes_no_question_asks_again_on_any_other_answer(tmp_path, god_script, lang):
    """"peut-être" or "clear" is neither yes nor no: a short line asks again (it used to count as
    no); Ctrl-D still means no to a confirmation, and q / Ctrl-D still leave at "Leave now?"."""
    rolls, _ = god_script
    rolls.append((0, 1))
    s = Script(["48", "peut-être", "clear", EOFError, "48", "", "n", "q", "maybe", "n", "2"])
    tg = game("gang-of-dice", 3, tmp_path, s, lang=lang)
    assert await tg.run() == 0
    commit, again = TerminalTranslator(lang)("term.god.commit", min=1, max=48), TerminalTranslator(lang)("term.yes_no")
    sure = TerminalTranslator(lang)("term.god.all", n=48)
    assert again == term_says("term.yes_no", lang)
    assert s.prompts[:8] == [commit, sure, sure, sure, commit, sure, sure, commit]  # Ctrl-D: no
    leave = s.prompts[8]
    assert term_said(leave, "term.leave", lang)
    assert s.prompts[9] == leave and s.prompts[10] == commit  # "maybe": asked again; "n": stays
    assert s.text.count(f"\n{again}\n") == 4
    assert (await action_log(tmp_path / "t.db"))[0] == "c2"


async def test_q_at_a_confirmation_goes_back(tmp_path, god_script):
    """"q" at a risky choice's confirmation ("Commit all 48?") is "no", the way back of a
    sub-question: the choice is asked again and nothing is committed."""
    rolls, _ = god_script
    rolls.append((0, 1))
    s = Script(["48", "q", "2"])
    tg = game("gang-of-dice", 3, tmp_path, s)
    assert await tg.run() == 0
    commit, sure = TerminalTranslator("en")("term.god.commit", min=1, max=48), TerminalTranslator("en")("term.god.all", n=48)
    assert s.prompts[:3] == [commit, sure, commit]
    assert (await action_log(tmp_path / "t.db"))[0] == "c2"


# --- 4. confirmation before leaving, play --resume ------------------------------------------------------
@pytest.mark.parametrize("leave", ["q", EOFError, KeyboardInterrupt])
async def test_leaving_asks_first_and_resume_continues_the_same_table(tmp_path, god_script, leave):
    rolls, _ = god_script
    s = Script([leave, "n", leave, "y"])
    tg = game("gang-of-dice", 3, tmp_path, s)
    assert await tg.run() == 0
    assert term_said(s.prompts[1], "term.leave")
    assert s.prompts[2] == s.prompts[0] == term_says("term.god.commit", min=1, max=48)  # "n": still playing
    assert term_said(s.text, "term.bye") and f"play --resume --db {tmp_path / 't.db'}" in s.text, "the hint names the --db file given"
    rolls.append((2, 2))
    again = Script(["2", "s"])
    resumed = TerminalGame(None, 0, None, db_path=tmp_path / "t.db", ask=again.ask, out=again.lines.append,
                           pace=0, resume=True)
    assert await resumed.run() == 0
    assert term_says("term.resumed", game=term_says("game.gang-of-dice.name"), id=1) in again.text
    assert (await action_log(tmp_path / "t.db"))[:2] == ["c2", "s"]


async def test_end_of_input_leaves_without_hanging(tmp_path):
    def eof(prompt: str) -> str:
        raise EOFError

    tg = TerminalGame("gang-of-dice", 2, seed=1, db_path=tmp_path / "t.db", ask=eof, out=lambda s: None, pace=0)
    assert await tg.run() == 0


async def test_resume_with_nothing_saved(tmp_path):
    s = Script([])
    tg = TerminalGame(None, 0, None, db_path=tmp_path / "t.db", ask=s.ask, out=s.lines.append, pace=0, resume=True)
    assert await tg.run() == 2
    assert term_says("term.nothing_saved") in s.text and not s.prompts
    assert not (tmp_path / "t.db").exists(), "a mistyped --db creates no file"


async def test_an_older_unfinished_game_is_named_and_resumed_by_its_table_number(tmp_path):
    """A second game of the same kind says how to reach the first (``--table 1``): the newer
    one is what ``--resume`` alone continues, ``--table 1`` the older; an unknown number is
    said, and nothing is played."""
    first = Script(["q"])
    assert await game("three-player-moon", 3, tmp_path, first).run() == 0  # left at once: saved
    second = Script(["q"])
    assert await game("three-player-moon", 3, tmp_path, second).run() == 0
    db = tmp_path / "t.db"
    hint = term_says("term.saved_other", game=term_says("game.three-player-moon.name"), id=1,
                     command=f"./scripts/start.sh play --resume --db {db} --table 1")
    assert hint in second.text
    for table_id, expected in ((1, 1), (None, 2)):
        s = Script(["q"])
        resumed = TerminalGame(None, 0, None, db_path=db, ask=s.ask, out=s.lines.append, pace=0, resume=True,
                               table_id=table_id)
        assert await resumed.run() == 0
        assert term_says("term.resumed", game=term_says("game.three-player-moon.name"), id=expected) in s.text
    s = Script([])
    unknown = TerminalGame(None, 0, None, db_path=db, ask=s.ask, out=s.lines.append, pace=0, resume=True, table_id=9)
    assert await unknown.run() == 2
    assert term_says("term.no_such_table", id=9) in s.text and not s.prompts


async def test_an_older_game_resumed_by_its_number_names_the_command_that_continues_it(tmp_path):
    """Leaving a game resumed with ``--table 1`` (table 2 being the most recent) names
    ``--table 1``: ``--resume`` alone would open table 2."""
    for _ in range(2):
        assert await game("three-player-moon", 3, tmp_path, Script(["q"])).run() == 0
    s = Script(["q"])
    older = TerminalGame(None, 0, None, db_path=tmp_path / "t.db", ask=s.ask, out=s.lines.append, pace=0,
                         resume=True, table_id=1)
    assert await older.run() == 0
    assert term_says("term.bye", command=f"./scripts/start.sh play --resume --db {tmp_path / 't.db'} --table 1") in s.text


async def test_resume_with_the_one_level_every_ai_seat_has_says_nothing_is_left_out(tmp_path):
    """A table started with ``--ai strong`` (every AI seat strong), resumed with ``--ai strong``:
    nothing to call not applied; another level is."""
    assert await game("three-player-moon", 3, tmp_path, Script(["q"]), ai_levels=["strong", "strong"]).run() == 0
    for levels, left_out in ((["strong"], False), (["easy"], True)):
        s = Script(["q"])
        resumed = TerminalGame(None, 0, None, db_path=tmp_path / "t.db", ask=s.ask, out=s.lines.append, pace=0,
                               resume=True, ai_levels=levels)
        assert await resumed.run() == 0
        assert term_said(s.text, "term.resume_keeps") is left_out, s.text.splitlines()[:3]


async def test_q_in_a_sub_question_goes_back_to_the_menu(tmp_path):
    # Moonshine's multi-selects (dice to reroll, tokens to discard) are sub-questions: q goes back
    from bot.terminal import BACK
    from bot.ui import Select, SelectOption

    s = Script(["q"])
    tg = game("moonshine", 3, tmp_path, s)
    sel = Select("Dice", (SelectOption("a", "a"), SelectOption("b", "b")), max_values=2, prefix="rr.")
    assert tg.ask_component(sel) is BACK
    s.answers = ["2 1"]
    assert tg.ask_component(sel) == "rr.a.b"


async def test_a_question_mark_in_a_sub_question_says_q_goes_back(tmp_path):
    s = Script(["q", "y"])  # a game started and left: the terminal knows its table
    tg = game("gang-of-dice", 3, tmp_path, s)
    assert await tg.run() == 0
    from bot.terminal import BACK
    from bot.ui import Select, SelectOption

    s.answers = ["?", "q"]
    sel = Select("Dice", (SelectOption("a", "a"), SelectOption("b", "b")), max_values=2, prefix="rr.")
    assert tg.ask_component(sel) is BACK
    assert term_says("term.help_back", key="gang-of-dice") in s.text
    assert term_says("term.help", command=tg.resume_command, key="gang-of-dice") not in s.text
    s.answers = ["?", "q"]  # a yes/no question: q is no, back to the question before
    assert tg.yes("Sure?") is False
    assert term_says("term.help", command=tg.resume_command, key="gang-of-dice") not in s.text


# --- 5. forced choices ------------------------------------------------------------------------------
async def test_a_forced_choice_is_applied_with_a_line(tmp_path, god_script):
    rolls, stocks = god_script
    stocks[0] = (1, 48, 48)
    rolls.append((2,))
    s = Script(["s"])
    tg = game("gang-of-dice", 3, tmp_path, s)
    assert await tg.run() in (0, 1)  # 0 when the human is then eliminated and the AIs finish
    assert "→ Commit 1" in s.text
    assert s.text.index("→ Commit 1") < s.text.index(s.prompts[0])  # applied before any question
    assert (await action_log(tmp_path / "t.db"))[:2] == ["c1", "s"]


# --- 6. AI pacing -------------------------------------------------------------------------------------
def test_ai_steps_are_paced_by_the_setting(tmp_path, monkeypatch):
    from bot.__main__ import main
    from bot.terminal import DEFAULT_PACE

    seen: dict[str, object] = {}

    async def fake_run(self):
        seen.update(pace=self.pace, resume=self.resume, db=self.db_path, game=self.game)
        return 0

    monkeypatch.setattr(TerminalGame, "run", fake_run)
    assert main(["play", "gang-of-dice"]) == 0 and seen["pace"] == DEFAULT_PACE == 0.6
    assert main(["play", "gang-of-dice", "--fast"]) == 0 and seen["pace"] == 0
    assert main(["play", "gang-of-dice", "--pace", "1.5", "--db", str(tmp_path / "x.db")]) == 0
    assert seen["pace"] == 1.5 and seen["db"] == tmp_path / "x.db"
    assert main(["play", "--resume"]) == 0 and seen["resume"] is True and seen["game"] is None
    with pytest.raises(SystemExit):
        main(["play"])
    with pytest.raises(SystemExit):
        main(["play", "gang-of-dice", "--pace", "-1"])


async def test_the_pace_is_the_services_ai_delay(tmp_path, monkeypatch):
    import bot.terminal as terminal

    delays: list[float] = []
    real = terminal.House

    def service(*args, **kw):
        delays.append(kw["ai_delay"])
        return real(*args, **{**kw, "ai_delay": 0})  # record it; the test itself never waits

    monkeypatch.setattr(terminal, "House", service)
    s = Script(["q", "y"])
    tg = TerminalGame("gang-of-dice", 2, seed=1, db_path=tmp_path / "t.db", ask=s.ask, out=s.lines.append, pace=0.6)
    await tg.run()
    assert delays == [0.6]


def test_default_db_path_is_known(monkeypatch, tmp_path):
    from bot.terminal import default_db_path

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "speakeasy" / "terminal.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_db_path() == Path.home() / ".local" / "share" / "speakeasy" / "terminal.db"


# --- 7. no Discord wording ------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_terminal_variants_replace_discord_wording(lang):
    from bot.i18n import Translator

    t, term = Translator(lang), TerminalTranslator(lang)
    for key in ("tpm.panel.trump", "tpm.panel.play", "game.gang-of-dice.rules", "god.panel.how"):
        assert DISCORD_WORDS.search(t(key)), key  # the Discord text speaks of buttons / bold
        assert not DISCORD_WORDS.search(term(key).replace("**", "")), key
    # the terminal rules text is the Discord one but for its last paragraph (no drift)
    assert term("game.gang-of-dice.rules").rsplit("\n", 1)[0] == t("game.gang-of-dice.rules").rsplit("\n", 1)[0]


def test_rules_command_uses_terminal_wording(capsys):
    from bot.__main__ import main

    assert main(["rules", "gang-of-dice"]) == 0
    out = capsys.readouterr().out
    assert "positions of the dice" in out and "＋" not in out


# --- 8. no block printed twice ----------------------------------------------------------------------------
async def test_boards_print_only_changed_blocks_and_the_panel_skips_them(tmp_path, god_script):
    rolls, _ = god_script
    rolls += [(2, 2, 2), (3,)]
    s = Script(["3", "b", "1", "s"])
    tg = game("gang-of-dice", 3, tmp_path, s)
    assert await tg.run() == 0
    before_b, after_b = s.text.split("> b")
    card, table, players = (term_says(f"god.field.{k}") for k in ("card", "table", "players"))
    panel_title = f"== {term_says('god.panel.title')} =="
    # round 1's warning card is printed once although the board printed twice (commit, roll)
    heading = f"== {term_says('game.gang-of-dice.name')} · {term_says('god.board.round', round=1, rounds=12)} =="
    assert before_b.count(heading) == 2
    assert before_b.count(f"{card}:\n") == 1
    assert f"{players}:" in before_b.split("> 3")[1]  # the changed block is printed again
    # and a line says which blocks the second board left out
    assert f"{term_says('term.unchanged', blocks=card)}\n{panel_title}" in before_b.split("> 3")[1]
    # the panel never repeats what the board shows
    for panel in before_b.split(panel_title)[1:]:
        assert f"{table}:" not in panel.split("\n? ")[0] and f"{card}:" not in panel.split("\n? ")[0]
    # "b" prints the whole board again, warning card included, then the player's own panel (its
    # dice), and asks the same question again
    shown = after_b.split("\n? ")[0]
    assert shown.count(f"{card}:\n") == 1 and not term_said(shown, "term.unchanged")
    assert shown.index(panel_title) > shown.index(heading) and f"{table}:" not in shown.split(panel_title)[1]
    assert re.search(r"(?m)^  1:\S", shown.split(panel_title)[1]), "the dice by position, which the question counts"
    assert "＋" not in shown and term_says("god.panel.how") in shown  # how to reroll, in the terminal's words
    assert s.prompts[1] == s.prompts[2]


async def test_b_at_a_menu_prints_its_numbered_choices_again(tmp_path):
    s = Script(["b", "q"])
    assert await game("three-player-moon", 3, tmp_path, s).run() == 0
    assert term_said(s.prompts[0], "term.prompt_keys")  # the bids: 0, 6, 7, 21
    before, after = s.text.split("> b", 1)
    listed = re.findall(r"(?m)^ +\d+\) .+$", before.rsplit("\n? ", 1)[0])
    assert listed and re.findall(r"(?m)^ +\d+\) .+$", after.split("\n? ", 1)[0])[-len(listed):] == listed


def test_labels_take_the_colon_of_the_language():
    from bot.terminal import compact_block
    from bot.ui import Block, Field

    card = Block(title="T", description="", fields=(Field("Pot", "4"), Field("Joueurs", "a\nb")))
    assert "Pot : 4" in compact_block(card, lang="fr") and "Joueurs :\n  a" in compact_block(card, lang="fr")
    assert "Pot: 4" in compact_block(card) and "Joueurs:\n  a" in compact_block(card)


# --- a shared victory at Shop Battle's round cap (RULINGS S6) names who shared it ---------------------
async def test_a_tie_at_the_round_cap_says_who_shared_the_victory(tmp_path, monkeypatch):
    import dataclasses

    from tests.shop_tables import shop, start

    g = GAMES["shop-battle"].game

    def setup(seed, players, options=None):  # round 10 of a 10-round cap, the human chooses last
        st = start([[shop("A1", year=2000), shop()], [shop("B1", year=1950), shop(), shop(), shop(), shop()],
                    [shop("C1", year=1900), shop(), shop()]], chooser=0, round_cap=10, rules=3)
        return dataclasses.replace(st, round=10, lap_opener=2)  # rules 3: the cap ends the lap (S6)

    monkeypatch.setattr(g, "setup", setup)
    s = Script(["1"])  # year founded, higher wins: A1 (2000) takes the pot, 4 cards against 4
    assert await game("shop-battle", 3, tmp_path, s).run() == 0
    assert "most cards wins (a tie shares the victory)" in s.text
    assert "🏁 Game over: a shared victory for Player 1 (you), AI 1 🤖 (normal)." in s.text
    results = s.text[s.text.index("final standings"):]
    assert "🥇 Player 1 (you) — 4 cards\n🥇 AI 1 🤖 (normal) — 4 cards" in results
    assert ("🤝 Shared victory: Player 1 (you), AI 1 🤖 (normal) share first place with 4 cards each.\n"
            "(Local game") in results


@pytest.mark.parametrize("resume", [False, True])
async def test_a_db_path_that_is_no_game_file_gets_one_line_not_a_traceback(tmp_path, resume):
    """``play --db FOLDER`` or ``--db`` on a file that is not SQLite: a one-line message, exit 2."""
    junk = tmp_path / "notes.txt"
    junk.write_text("not a database " * 100)
    for path in (tmp_path, junk):
        lines: list[str] = []
        tg = TerminalGame("gang-of-dice", 2, seed=1, db_path=path, ask=lambda prompt: "q", out=lines.append,
                          pace=0, resume=resume)
        assert await tg.run() == 2
        assert len(lines) == 1 and lines[0].startswith(f"Cannot open {path} as a game file:"), lines
    assert junk.read_text().startswith("not a database")  # nothing written over it
    if not resume:  # a file in the middle of the path: the system's words, the right ones
        lines = []
        under = junk / "sub" / "t.db"
        tg = TerminalGame("gang-of-dice", 2, seed=1, db_path=under, ask=lambda prompt: "q", out=lines.append, pace=0)
        assert await tg.run() == 2
        assert lines == [f"Cannot open {under} as a game file: Not a directory. Give --db a new file name or a "
                         "Speakeasy game file."]


def test_a_folder_given_as_db_leaves_no_thread_traceback_at_exit(tmp_path):
    """The real command on a folder: its one line, exit 2, and nothing else on either stream
    (a failed aiosqlite connect used to leave its worker thread answering the closed event loop:
    a "RuntimeError: Event loop is closed" traceback at exit, most runs). Three runs: the old
    race showed in five runs of six."""
    import subprocess
    import sys

    for _ in range(3):
        run = subprocess.run([sys.executable, "-m", "bot", "play", "gang-of-dice", "--db", str(tmp_path)],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        assert run.returncode == 2
        assert (run.stdout + run.stderr).strip().startswith(f"Cannot open {tmp_path} as a game file:")
        assert "Traceback" not in run.stdout + run.stderr and "Exception in thread" not in run.stderr


# --- play --resume: the options it cannot apply, the language -----------------------------------------
async def test_resume_says_which_new_game_options_it_cannot_apply_and_keeps_the_language(tmp_path):
    path = tmp_path / "t.db"
    s = Script(["q", "o"])
    assert await TerminalGame("three-player-moon", 3, seed=5, lang="fr", db_path=path, ask=s.ask,
                              out=s.lines.append, pace=0).run() == 0
    # no --lang: shown in French, as it was started; --players/--seed/--ai do not apply, in one line
    again = Script(["q", "o"])
    assert await TerminalGame(None, 4, 99, db_path=path, ask=again.ask, out=again.lines.append, pace=0,
                              resume=True, ai_levels=["strong", "easy"]).run() == 0
    kept = [line for line in again.lines if term_said(line, "term.resume_keeps", "fr")]
    assert kept == [term_says("term.resume_keeps", "fr", flags="--players 4, --seed 99, --ai strong,easy", players=3)]
    assert term_said(again.text, "term.resumed", "fr", game=term_says("game.three-player-moon.name", "fr"))
    assert "IA 2 🤖 (normal)" in again.text
    # --lang en: everything in English, the generated names too; an option equal to the table's is no news
    en = Script(["q", "y"])
    assert await TerminalGame(None, 3, 5, lang="en", db_path=path, ask=en.ask, out=en.lines.append, pace=0,
                              resume=True).run() == 0
    assert term_said(en.text, "term.resumed", game=term_says("game.three-player-moon.name"))
    assert not term_said(en.text, "term.resume_keeps")
    assert term_says("term.you") in en.text and "AI 2 🤖 (normal)" in en.text
    assert "Joueur" not in en.text and "IA " not in en.text and "vous" not in en.text


def test_display_seats_translates_only_generated_names():
    from bot.i18n import Translator
    from bot.terminal import display_seats
    from storage.base import SeatRow

    seats = [SeatRow(0, 1, "Joueur 1 (vous)", False), SeatRow(1, None, "IA 2", True),
             SeatRow(2, None, "Zoé", True), SeatRow(3, 7, "IA 3", False)]
    assert [s.name for s in display_seats(seats, Translator("en"))] == ["Player 1 (you)", "AI 2", "Zoé", "IA 3"]
    assert [s.name for s in display_seats(seats, Translator("fr"))] == [s.name for s in seats]


def test_play_resume_passes_the_options_through_instead_of_refusing(monkeypatch):
    from bot.__main__ import main

    seen: dict[str, object] = {}

    async def fake_run(self):
        seen.update(players=self.players, seed=self.seed, levels=self.ai_levels, lang=self.lang, options=self.options)
        return 0

    monkeypatch.setattr(TerminalGame, "run", fake_run)
    assert main(["play", "--resume", "--players", "9", "--seed", "3", "--ai", "strong", "--option", "round_cap=50",
                 "--deck", "mine.json"]) == 0
    assert seen == {"players": 9, "seed": 3, "levels": ["strong"], "lang": None,  # the table says what it keeps
                    "options": {"round_cap": 50, "deck_data": "mine.json"}}
    assert main(["play", "gang-of-dice"]) == 0 and seen["lang"] is None and seen["players"] == 3


# --- one choice: taken, not asked -------------------------------------------------------------------------
async def test_a_menu_whose_only_entry_is_a_sub_question_goes_straight_to_it(tmp_path):
    s = Script(["q", "n", "1 2"])  # Moonshine regular: the starting hand is drafted (keep 2 of 5)
    tg = game("moonshine", 3, tmp_path, s, options={"variant": "regular"})
    assert await tg.run() == 0
    assert "→ Choose 2 Clients… (your only choice here)" in s.text
    assert s.prompts[0] == term_says("term.multi_n", n=2, q=term_says("term.q_quit"))  # no "type 1" menu first
    assert term_said(s.prompts[1], "term.leave")  # q: nothing to go back to
    assert s.prompts[2] == s.prompts[0]
    assert (await action_log(tmp_path / "t.db"))[0].startswith("draft.")


async def test_a_sub_question_with_one_answer_is_taken(tmp_path):
    from bot.ui import NumberPrompt, Select, SelectOption

    s = Script([])
    tg = game("moonshine", 3, tmp_path, s)
    both = Select("Tokens", (SelectOption("🌙 A", "a"), SelectOption("🌙 B", "b")), min_values=2, max_values=2,
                  prefix="dis.")
    assert tg.ask_component(both) == "dis.a.b" and s.lines == ["→ 🌙 A, 🌙 B (your only choice here)"]
    assert tg.ask_component(NumberPrompt("Commit", "Dice", 3, 3, "c{n}")) == "c3" and not s.prompts


# --- panels whole after news, constant footers once ---------------------------------------------------------
async def test_a_panel_is_shown_whole_after_news_and_a_constant_footer_once(tmp_path, monkeypatch):
    """A panel block printed last time is left out only when nothing public happened since (Shop
    Battle's top card coming back, Moonshine's "what each Client misses" that its text points
    to); a footer that never changes (Moonshine's legend) is printed once."""
    import dataclasses

    import bot.terminal as terminal
    from bot.ui import Field

    real = terminal.compose.panel

    def panel(table, seat, t):
        p = real(table, seat, t)
        card = dataclasses.replace(p.card, fields=(*p.card.fields, Field("Pinned", "same")), footer="Legend")
        return dataclasses.replace(p, card=card)

    monkeypatch.setattr(terminal.compose, "panel", panel)
    s = Script(["0", "0", "0"])  # three bids in Three-Player Moon, each after other players' moves
    await game("three-player-moon", 3, tmp_path, s).run()
    panels = s.text.count("== Your tiles ==")
    assert panels >= 2 and s.text.count("Pinned: same") == panels
    assert s.text.count("(Legend)") == 1


# --- wording found by playing every game in both languages ---------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_value_with_a_label_of_its_own_prints_under_its_name(lang):
    from bot.i18n import colon
    from bot.terminal import compact_block
    from bot.ui import Block, Field

    c = colon(lang)
    card = Block(title="T", description="", fields=(Field("Bid", f"AI 2{c} 4"), Field("Trumps", "6s")))
    assert compact_block(card, lang=lang).splitlines()[1:] == [f"Bid{c}", f"  AI 2{c} 4", f"Trumps{c} 6s"]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_shop_name_ending_in_a_number_stays_apart_from_its_value(lang):
    from bot.i18n import Translator
    from bot.presenters.shop_battle import card_label
    from engine.shop_battle.view import ShopCardView

    card = ShopCardView(id=1, name="Disquaire Vinyle 33", year=1972, letters=17, street=33, games=5)
    assert card_label(card, "street", TerminalTranslator(lang)) == "Disquaire Vinyle 33 (33)"
    assert card_label(card, "street", Translator(lang)) == "Disquaire Vinyle 33 **33**"  # Discord: bold


def test_ctrl_c_while_the_ai_moves_says_bye_in_the_games_language(monkeypatch, capsys, tmp_path):
    from bot.__main__ import main

    async def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(TerminalGame, "run", interrupted)
    assert main(["play", "gang-of-dice", "--lang", "fr", "--db", str(tmp_path / "x.db")]) == 130
    out = capsys.readouterr().out
    assert term_said(out, "term.bye", "fr") and f"play --resume --db {tmp_path / 'x.db'}" in out


async def test_shooting_the_moon_is_confirmed_first(tmp_path):
    """A "danger" button (Three-Player Moon's 21: all 7 tricks or -21 points) is asked again."""
    s = Script(["21", "n", "21", "y"])
    assert await game("three-player-moon", 3, tmp_path, s).run() == 0
    assert term_said(s.prompts[0], "term.prompt_keys") and "21" in s.prompts[0]
    assert s.prompts[1] == term_says("term.confirm.three-player-moon.b21", choice=term_says("tpm.btn.moon"))
    assert s.prompts[2] == s.prompts[0]  # "n": the same question again, nothing played
    assert (await action_log(tmp_path / "t.db"))[0] == "b21"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_peek_at_a_pile_prints_one_card_a_line(lang):
    from bot.i18n import Translator, colon
    from bot.terminal import list_lines, plain

    cards = [f"Shop {i} (founded 19{i}0 · 12 letters · street no. {i} · 3 games in the shop)" for i in range(1, 4)]
    line = plain(TerminalTranslator(lang)("sb.ev.peek_result", target="AI 1", count=3, seconds=10,
                                          cards="; ".join(cards)))
    head, *items = list_lines(line)
    assert head.endswith(("3 cards)" if lang == "en" else "3 cartes)") + colon(lang))
    assert "Shop" not in head and "10" not in head
    assert "10\u00a0s" in Translator(lang)("sb.ev.peek_result", target="AI 1", count=3, seconds=10, cards="x")
    assert items == [f"      {i}. {card}" for i, card in enumerate(cards, start=1)]
    assert list_lines("  🔒 You drew: The Crooner, The Baker") == ["  🔒 You drew: The Crooner, The Baker"]


async def test_resume_of_a_game_not_saved_names_the_game_that_is(tmp_path):
    s = Script(["q", "y"])
    await game("gang-of-dice", 2, tmp_path, s).run()
    again = Script([])
    tg = TerminalGame("moonshine", 0, None, db_path=tmp_path / "t.db", ask=again.ask, out=again.lines.append,
                      pace=0, resume=True)
    assert await tg.run() == 2
    assert again.lines == [f"No unfinished game of Moonshine to resume. Your unfinished game of Gang of Dice "
                           f"continues with: ./scripts/start.sh play --resume --db {tmp_path / 't.db'}"]


async def test_resume_names_options_and_a_deck_it_does_not_apply(tmp_path):
    s = Script(["q", "y"])
    await game("shop-battle", 3, tmp_path, s, options={"round_cap": 30}).run()
    again = Script(["q", "y"])
    assert await TerminalGame(None, 0, None, db_path=tmp_path / "t.db", ask=again.ask, out=again.lines.append,
                              pace=0, resume=True, options={"round_cap": 50, "deck_data": "mine.json"}).run() == 0
    assert term_says("term.resume_keeps", flags="--option round_cap=50, --deck", players=3) in again.lines


# --- a newcomer's report (terminal, pictures, texts) ----------------------------------------------
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_move_made_in_another_window_is_one_plain_line_and_the_board_again(tmp_path, god_script, lang):
    """The same table open in two terminals: the older one's move is refused with a plain,
    translated line (no Discord wording, no log line), then the board as it stands is printed."""
    import asyncio
    import threading

    from bot.house import House

    path = tmp_path / "t.db"

    def other_window() -> None:
        async def go() -> None:
            db = await SqliteStore.open(path)
            service = House(db, ai_delay=0)
            try:
                await service.tables.submit(1, 1, 0, "c2")
            finally:
                await service.tables.close()
                await db.close()

        asyncio.run(go())

    answers: list[str | type[BaseException]] = ["2"]
    s = Script(answers)
    real_ask = s.ask

    def ask(prompt: str) -> str:
        if len(s.prompts) == 0:  # while this window waits, the other one moves first
            thread = threading.Thread(target=other_window)
            thread.start()
            thread.join()
        return real_ask(prompt)

    tg = TerminalGame("gang-of-dice", 3, seed=11, lang=lang, db_path=path, ask=ask, out=s.lines.append, pace=0)
    assert await tg.run() == 0
    line = TerminalTranslator(lang)("err.stale")
    assert line in s.text and line.startswith(("This table was changed in another window",
                                                "Cette table a été modifiée dans une autre fenêtre"))
    assert not DISCORD_WORDS.search(s.text) and "another writer" not in s.text
    after = s.text.split(line, 1)[1]
    assert after.split("? ", 1)[0].lstrip("\n").startswith("== ")  # the board as it stands, at once
    assert (await action_log(path))[:1] == ["c2"]


def test_play_writes_its_log_beside_the_tables_not_on_the_screen(tmp_path):
    from bot.terminal import log_path

    assert log_path(tmp_path / "t.db") == tmp_path / "t.log"


async def test_staying_after_leave_shows_the_panel_whole_again(tmp_path, monkeypatch):
    import dataclasses

    import bot.terminal as terminal
    from bot.ui import Field

    real = terminal.compose.panel

    def panel(table, seat, t):
        p = real(table, seat, t)
        return dataclasses.replace(p, card=dataclasses.replace(p.card, fields=(*p.card.fields, Field("Pinned", "same"))))

    monkeypatch.setattr(terminal.compose, "panel", panel)
    s = Script(["q", "n", "q", "y"])
    await game("three-player-moon", 3, tmp_path, s).run()
    stay = s.text.split("> n", 1)[1]
    assert "Pinned: same" in stay.split("? ", 1)[0]


@pytest.mark.skipif(__import__("os").name != "posix", reason="the check asks the OS about a process id")
async def test_resume_warns_when_another_running_process_has_the_table_open(tmp_path, god_script):

    from bot.terminal import marker_path, open_elsewhere

    s = Script(["q", "y"])
    assert await game("gang-of-dice", 3, tmp_path, s).run() == 0
    marker = marker_path(tmp_path / "t.db", 1)
    assert not marker.exists(), "leaving removes this process's note"
    import subprocess
    import sys
    import time

    def spawn(*args: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", "import sys, time; time.sleep(float(sys.argv[1]))", *args])

    window = spawn("60", "play", "--resume")  # another terminal game, still running
    other = spawn("60", "serve")  # a running process that is no game (a killed window's number reused)
    zombie = spawn("0", "play")  # a window that exited, not yet reaped by its parent
    try:
        proc = Path(f"/proc/{zombie.pid}/stat")
        deadline = time.monotonic() + 20
        while proc.exists() and proc.read_text().rsplit(")", 1)[-1].split()[0] != "Z" and time.monotonic() < deadline:
            time.sleep(0.02)
        cases = [(window.pid, True), (999_999_999, False)]  # a running game; no such process
        if proc.exists():  # Linux: /proc tells a zombie and another program apart
            cases += [(other.pid, False), (zombie.pid, False)]
        for pid, warned in cases:
            marker.write_text(str(pid))
            assert open_elsewhere(marker) is warned, pid
            again = Script(["q", "y"])
            resumed = TerminalGame(None, 0, None, db_path=tmp_path / "t.db", ask=again.ask, out=again.lines.append,
                                   pace=0, resume=True)
            assert await resumed.run() == 0
            assert ("This table is also open in another window" in again.text) is warned
    finally:
        for p in (window, other, zombie):
            p.kill()
            p.wait()


@pytest.mark.skipif(__import__("os").name != "posix", reason="the check asks the OS about a process id")
async def test_markers_left_by_killed_terminals_are_swept_and_running_ones_kept(tmp_path):
    """A terminal that was killed leaves its table's marker behind: the next game on the same
    file removes it, and keeps the marker of a terminal game still running."""
    import subprocess
    import sys

    from bot.terminal import marker_path

    db = tmp_path / "t.db"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # its pid: a process that ended
    running = subprocess.Popen([sys.executable, "-c", "import sys, time; time.sleep(float(sys.argv[1]))", "60", "play"])
    try:
        marker_path(db, 7).write_text(str(gone.pid))
        marker_path(db, 8).write_text(str(running.pid))
        marker_path(db, 9).write_text("")  # being written by another terminal: it stays
        assert await game("three-player-moon", 3, tmp_path, Script(["q"])).run() == 0
        assert not marker_path(db, 7).exists() and marker_path(db, 8).read_text() == str(running.pid)
        assert marker_path(db, 9).exists()
        assert not marker_path(db, 1).exists()  # this game's own, removed as it left
    finally:
        running.kill()
        running.wait()


def test_a_marker_rewritten_while_it_is_swept_stays(tmp_path, monkeypatch):
    """A killed terminal's marker is being swept when another terminal opens the table and
    writes its own pid there: the sweep, which read the old pid, leaves the new marker."""
    from bot.terminal import marker_path, sweep_markers

    if __import__("os").name != "posix":
        pytest.skip("the sweep asks the OS about a process id")
    marker = marker_path(tmp_path / "t.db", 7)
    marker.write_text("999999999")  # a gone process's
    real = Path.read_text
    reads = []

    def read_text(self, *args, **kwargs):
        text = real(self, *args, **kwargs)
        if self == marker and not reads:  # right after the sweep's first read: another terminal marks it
            reads.append(text)
            marker.write_text(str(__import__("os").getppid()))
        return text

    monkeypatch.setattr(Path, "read_text", read_text)
    sweep_markers(tmp_path / "t.db")
    monkeypatch.undo()
    assert marker.exists() and reads == ["999999999"]


async def test_a_marker_that_cannot_be_written_leaves_no_file(tmp_path, monkeypatch):
    """A full disk while the table's marker is put in place: the game goes on, and no
    temporary file is left beside the tables."""
    import errno
    import os

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    assert await game("three-player-moon", 3, tmp_path, Script(["q"])).run() == 0
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


async def test_images_writes_no_copy_of_an_unchanged_board(tmp_path, god_script):
    """``--images``: a reroll of 40 dice in one answer is 41 stored steps (40 marks and the roll);
    only the steps that change the public board write a picture, so the folder holds no two
    identical PNGs (it held 40 copies), and the roll's picture is there."""
    import hashlib

    rolls, _ = god_script
    rolls += [(1,) * 40, (2,) * 40]
    images = tmp_path / "pics"
    s = Script(["40", "all", "s"])
    assert await game("gang-of-dice", 3, tmp_path, s, images=images).run() == 0
    log = await action_log(tmp_path / "t.db")
    assert log[:42] == ["c40"] + ["m1"] * 40 + ["r"]
    pictures = sorted(images.glob("board-*.png"))
    digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in pictures]
    assert len(set(digests)) == len(digests) >= 3  # the commitment, the first roll, the reroll, ...
    written = {int(p.stem.split("-")[1]) for p in pictures}
    # steps 2-41 are the marks (the first one changes the board: a reroll begins), 42 the roll
    assert not written & set(range(3, 42)), sorted(written)
    assert 42 in written


# --- play --images DIR: refused at once when unusable; a later failure never hides the game --------------
@pytest.mark.parametrize("resume", [False, True])
async def test_an_images_path_that_cannot_take_pictures_gets_one_line_and_exit_2(tmp_path, resume):
    """``--images`` on a regular file, under a file, or where no folder can be made: one line
    naming the path and the system's reason, exit 2, and no game file created."""
    junk = tmp_path / "bad1.json"
    junk.write_text("{}")
    for images, reason in ((junk, "Not a directory"), (junk / "sub", "Not a directory"),
                           (Path("/proc/nope"), "No such file or directory")):
        lines: list[str] = []
        tg = TerminalGame("gang-of-dice", 2, seed=1, db_path=tmp_path / "t.db", ask=lambda prompt: "q",
                          out=lines.append, pace=0, images=images, resume=resume)
        assert await tg.run() == 2
        assert lines == [f"Cannot write pictures to {images}: {reason}. Give --images a folder you can write "
                         "to (it is created if missing)."]
    assert not (tmp_path / "t.db").exists() and junk.read_text() == "{}"


def test_the_real_command_refuses_an_images_file_with_exit_2(tmp_path):
    import subprocess
    import sys

    junk = tmp_path / "bad1.json"
    junk.write_text("{}")
    run = subprocess.run([sys.executable, "-m", "bot", "play", "gang-of-dice", "--fast", "--seed", "3",
                          "--images", str(junk), "--db", str(tmp_path / "t.db")],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stdout.strip() == (f"Cannot write pictures to {junk}: Not a directory. Give --images a folder "
                                  "you can write to (it is created if missing).")
    assert run.stderr == "" and not (tmp_path / "t.db").exists()


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_picture_that_cannot_be_written_mid_game_is_one_warning_and_the_game_shows_on(tmp_path, lang):
    """The pictures' folder turns into a file during the game (as a full disk would fail a write):
    one warning line, then the event lines and the board as usual; once the folder is back, the
    pictures are written again (and a new failure warns again)."""
    import shutil

    images = tmp_path / "pics"
    s = Script([])
    player = Player(seed=5)
    player.script = []

    def ask(prompt: str) -> str:
        n = len(s.prompts)
        if n == 0:  # after the first pictures: the folder becomes a file
            assert sorted(images.glob("board-*.png"))
            shutil.rmtree(images)
            images.write_text("not a folder")
        elif n == 4:  # the folder comes back
            images.unlink()
        s.prompts.append(prompt)
        s.lines.append(f"? {prompt}")
        answer = ("y" if "(y/n)" in prompt or "(o/n)" in prompt else "q") if n >= 8 else player(prompt)
        s.lines.append(f"> {answer}")
        return answer

    tg = TerminalGame("moonshine", 3, seed=11, lang=lang, db_path=tmp_path / "t.db", ask=ask,
                      out=s.lines.append, pace=0, images=images)
    assert await tg.run() == 0
    warning = TerminalTranslator(lang)("term.images_failed", path=str(images), reason="Not a directory")
    assert s.text.count(warning) == 1, s.text
    failing = s.text.split("\n> ", 1)[1].split("\n> ", 4)[:4]  # the answers given while it was a file
    assert warning in failing[0]
    for chunk in failing:
        assert "\n  • " in chunk and "\n== " in chunk, chunk  # event lines, and the board drawn again
    assert images.is_dir() and sorted(images.glob("board-*.png")), "pictures are written again"


# --- the automatic board says which blocks it leaves out ----------------------------------------------
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_board_without_its_unchanged_blocks_names_them(tmp_path, lang):
    """Moonshine, 3 players: every board printed shows each player's block or names the player
    in one line under it ("AI 1 🤖 (normal): unchanged (b shows the whole board)"); "b" prints
    the whole board, without that line."""
    from bot.terminal import block_names

    s = Script([])
    player = Player(seed=5)
    player.script = []
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        if len(asked) == 12:
            answer = "b"
        elif len(asked) > 24:
            answer = "y" if "(y/n)" in prompt or "(o/n)" in prompt else "q"
        else:
            answer = player(prompt)
        s.lines.append(f"? {prompt}\n> {answer}")
        return answer

    tg = TerminalGame("moonshine", 3, seed=11, lang=lang, db_path=tmp_path / "t.db", ask=ask,
                      out=s.lines.append, pace=0)
    assert await tg.run() == 0
    t = TerminalTranslator(lang)
    seats = [t("term.you"), f"{t('lobby.ai_name')} 1 🤖 ({t('ai.level.normal')})",
             f"{t('lobby.ai_name')} 2 🤖 ({t('ai.level.normal')})"]
    tail = t("term.unchanged", blocks="\0").split("\0")[1]
    boards = [chunk.split("\n(")[0] for chunk in s.text.split("\n== Moonshine")[1:]]
    noted = 0
    for board in boards:
        lines = board.splitlines()
        shown = [name for name in seats if any(line.lstrip("▶️ ").startswith(name + " —") for line in lines)]
        notes = [line for line in lines if line.endswith(tail)]
        named = notes[0].removesuffix(tail).split(", ") if notes else []
        assert sorted(shown + [n for n in named if n in seats]) == sorted(seats), board
        noted += bool(named)
    assert noted, "some board left a player out"
    whole = s.text.split("> b\n", 1)[1].split("\n? ")[0]
    assert all(name in whole for name in seats) and tail not in whole
    assert block_names([Field("▶️ AI 1 🤖 (normal) — 16 pts · 🌙 1", "x"), Field("Scores (first to 21)", "y")],
                       ["AI 1 🤖 (normal)", "AI 11 🤖 (normal)"]) == ["AI 1 🤖 (normal)", "Scores (first to 21)"]


# --- a table finished in another window -------------------------------------------------------------------
def finished_by_window_b(path: Path, s: Script) -> Callable[[str], str]:
    """Window A's ``ask``: at A's first prompt, window B (``play --resume`` on ``path``, in a
    thread) plays the game to the end; then ``s`` answers."""
    import asyncio
    import threading

    def window_b() -> None:
        player = Player(seed=4)
        player.script = []
        b = TerminalGame(None, 0, None, db_path=path, ask=player, out=lambda line: None, pace=0, resume=True)
        assert asyncio.run(b.run()) == 0

    def ask(prompt: str) -> str:
        if not s.prompts:  # while A waits at its first prompt, B finishes the game
            thread = threading.Thread(target=window_b)
            thread.start()
            thread.join()
        return s.ask(prompt)

    return ask


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_window_left_open_on_a_game_finished_elsewhere_shows_the_board_and_the_standings(tmp_path, lang):
    """Window A has a Shop Battle table open; window B (``play --resume``) plays it to the end;
    A's next answer gets the stale line, then the board as it stands and the final standings, and
    A exits 0."""
    path = tmp_path / "t.db"
    s = Script(["1"])
    ask = finished_by_window_b(path, s)
    a = TerminalGame("shop-battle", 3, seed=11, lang=lang, db_path=path, ask=ask, out=s.lines.append, pace=0,
                     options={"round_cap": 10})
    assert await a.run() == 0
    t = TerminalTranslator(lang)
    stale = t("err.stale")
    assert stale in s.text and len(s.prompts) == 1
    after = s.text.split(stale, 1)[1]
    title = t("result.title", game=t("game.shop-battle.name"))
    assert f"== {title} ==" in after and "🥇" in after  # the final standings
    board, results = after.split(f"== {title} ==")
    assert board.lstrip("\n").startswith(f"== {t('game.shop-battle.name')} · ")  # the whole board first
    assert board.lstrip("\n").splitlines()[1].startswith("🏆 ")  # as it stands: game over
    assert t("sb.field.piles") + (" :" if lang == "fr" else ":") in board
    assert results.rstrip().endswith(f"({t('term.footer')})")


async def test_leaving_a_window_whose_game_was_finished_elsewhere_does_not_say_it_is_saved(tmp_path):
    """Window A is asked its move; window B plays the game to the end; A answers q, y: the game
    is over, so A shows the board and the final standings, not "Your game is saved", and exits 0."""
    path = tmp_path / "t.db"
    s = Script(["q", "y"])
    ask = finished_by_window_b(path, s)
    a = TerminalGame("shop-battle", 3, seed=11, db_path=path, ask=ask, out=s.lines.append, pace=0,
                     options={"round_cap": 10})
    assert await a.run() == 0
    assert len(s.prompts) == 2 and "Leave the table now?" in s.prompts[1]
    assert "Your game is saved" not in s.text.split(s.prompts[1], 1)[1]
    assert "== Shop Battle — final standings ==" in s.text and "🥇" in s.text
    nothing = Script([])
    assert await TerminalGame(None, 0, None, db_path=path, ask=nothing.ask, out=nothing.lines.append, pace=0,
                              resume=True).run() == 2
    assert "No unfinished terminal game to resume" in nothing.text


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_hyper_u_peek_in_the_terminal_keeps_its_private_mark_and_speaks_of_no_seconds(tmp_path, monkeypatch,
                                                                                                lang):
    """HYPER U in the terminal: the pile seen stays in the scrollback, so nothing says "visible
    10 s" (Discord's disappearing message) nor "for 10 s"; the line keeps its 🔒 private mark."""
    from tests.shop_tables import shop, start

    g = GAMES["shop-battle"].game

    def setup(seed, players, options=None):  # the human chooses first, and its top card is HYPER U
        return start([[{"name": "HYPER U", "power": "peek"}, shop("A1"), shop("A2")],
                      [shop("B1"), shop("B2"), shop("B3")], [shop("C1"), shop("C2"), shop("C3")]], seed=3, deck="T")

    monkeypatch.setattr(g, "setup", setup)
    s = Script(["1"])
    assert await game("shop-battle", 3, tmp_path, s, lang=lang).run() == 0
    peek = [line for line in s.lines if line.startswith("  🔒 🔍 ")]
    assert len(peek) == 1 and ("B1" in s.text.split(peek[0], 1)[1].split("\n? ")[0])
    assert not re.search(r"10[ \u00a0]s\b|visible|secondes?\b|seconds?\b", s.text), re.findall(r".*10[ \u00a0]s.*", s.text)
    assert "HYPER U" in s.text


# --- no step counter on screen ----------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_reroll_of_many_dice_moves_no_counter_on_screen(tmp_path, god_script, lang):
    """The table's stored count is of engine steps: a reroll of 40 dice is 41 of them (40 marks
    and the roll), which the old footer showed as "move 3" → "move 44". The terminal counts no
    moves: the footer names the table only, the heading gives the round."""
    rolls, _ = god_script
    rolls += [(1,) * 40, (2,) * 40]
    s = Script(["40", "all", "s"])
    tg = game("gang-of-dice", 3, tmp_path, s, lang=lang)
    assert await tg.run() == 0
    log = await action_log(tmp_path / "t.db")
    assert log[:42] == ["c40"] + ["m1"] * 40 + ["r"]  # one answer, 41 steps of the table
    table = TerminalTranslator(lang)("board.footer", id=1)
    assert table == ("Table #1" if lang == "en" else "Table n°1")
    footers = [line for line in s.text.splitlines() if line.startswith("(Table")]
    assert footers and set(footers) == {f"({table})"}
    assert not re.search(r"\b(?:move|coup) [0-9]", s.text)
    again = Script(["q", "y"])
    assert await TerminalGame(None, 0, None, db_path=tmp_path / "t.db", ask=again.ask, out=again.lines.append,
                              pace=0, resume=True).run() == 0
    assert not re.search(r"\b(?:move|coup) [0-9]", again.text)
    assert ("Resuming Gang of Dice, table #1." if lang == "en" else "Reprise de Gang of Dice, table n°1.") in again.text


async def test_a_question_mark_shows_the_keys_and_asks_again(tmp_path):
    s = Script(["?", "q"])
    tg = game("gang-of-dice", 3, tmp_path, s)
    assert await tg.run() == 0
    assert term_says("term.help", command=tg.resume_command, key="gang-of-dice") in s.text
    assert s.prompts[1] == s.prompts[0]  # the same question again, nothing played
    assert await action_log(tmp_path / "t.db") == []
