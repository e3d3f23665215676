"""Worker processes that end with the bot: however the bot process ends (SIGKILL included), its
AI and picture workers notice and exit, so a supervisor that restarts the bot never piles up
orphans.

:func:`watch` runs in each worker as it starts (the pools' initializer, given the bot's process
id): a daemon thread waits on a pidfd of the bot (Linux: a file descriptor that becomes
readable when that process ends, whichever process is the worker's parent; the AI workers are
forked by a fork server, not by the bot), or, where there is no pidfd, checks every
:data:`POLL_SECONDS` that the bot still exists; then the worker exits at once. Once its workers
are gone, the AI pool's fork server and multiprocessing's resource tracker see their last pipe
close and exit by themselves.
"""

from __future__ import annotations

import os
import select
import threading
import time

__all__ = ["POLL_SECONDS", "watch"]

#: How often a worker without pidfds (not Linux) checks that the bot still runs (seconds).
POLL_SECONDS = 0.5


def watch(bot_pid: int) -> None:
    """End this process as soon as the process ``bot_pid`` ends (at once if it is gone
    already). Returns immediately (the waiting is a daemon thread); does nothing in the bot
    itself."""
    if os.getpid() == bot_pid:
        return
    fd: int | None = None
    try:
        fd = os.pidfd_open(bot_pid)
    except ProcessLookupError:
        os._exit(0)
    except (AttributeError, OSError):  # pragma: no cover - no pidfd (not Linux, an old kernel)
        fd = None
    threading.Thread(target=_wait, args=(bot_pid, fd), name="lifeline", daemon=True).start()


def _wait(bot_pid: int, fd: int | None) -> None:
    if fd is not None:
        select.select([fd], [], [])  # readable once the process has ended
    else:  # pragma: no cover - no pidfd
        while True:
            time.sleep(POLL_SECONDS)
            try:
                os.kill(bot_pid, 0)
            except ProcessLookupError:
                break
            except PermissionError:
                continue
    os._exit(0)
