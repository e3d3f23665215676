"""The command line's messages (``python -m bot play|render|simulate``): a bad argument is one
clear line and an exit status, never a traceback, in the same words whichever command says it."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from bot.__main__ import main


@pytest.mark.parametrize("kind", ["file", "under a file"])
def test_render_refuses_an_out_that_is_a_file_or_cannot_be_made_in_one_line(tmp_path, capsys, kind):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = blocker if kind == "file" else blocker / "pics"  # under a file: the folder cannot be made
    assert main(["render", "gang-of-dice", "--steps", "0", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"Cannot write pictures to {out}: Not a directory. Give --out a folder "
                                       "you can write to (it is created if missing).\n")


def test_render_says_in_one_line_when_a_picture_cannot_be_written(tmp_path, capsys, monkeypatch):
    def full(self: Path, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_bytes", full)
    assert main(["render", "gang-of-dice", "--steps", "0", "--out", str(tmp_path / "pics")]) == 2
    assert capsys.readouterr().err.startswith(f"Cannot write pictures to {tmp_path / 'pics'}: No space left on device.")
