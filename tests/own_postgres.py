"""A PostgreSQL server of one test (or benchmark) alone, to stop and start at will: the outage
tests (``tests/test_outages.py``) and ``bench.faults`` restart it; the shared server
``scripts/test.sh`` starts is never touched.

It is a copy of the fresh cluster ``scripts/_postgres.sh`` keeps in ``.venv`` (made by the first
``scripts/test.sh`` run), in a temporary folder (in memory when there is a tmpfs), listening on
a unix socket there only; as root the server runs as the postgres user, as the script does.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["OwnPostgres"]

ROOT = Path(__file__).resolve().parent.parent


def _pg_bin() -> str | None:
    """The folder of ``pg_ctl`` (Debian's versioned folders first, then PATH), or ``None``."""
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin")):
        if os.access(f"{d}/pg_ctl", os.X_OK):
            return d
    found = shutil.which("pg_ctl")
    return os.path.dirname(found) if found else None


class OwnPostgres:
    """One server: :meth:`start`, :meth:`stop` (``fast``: clients are disconnected, as in an
    operator's restart; ``immediate``: a crash), :meth:`remove` (stopped and deleted).
    :attr:`url` reaches it."""

    def __init__(self, bin_dir: str, cluster: Path) -> None:
        self.bin = bin_dir
        base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        self.dir = Path(tempfile.mkdtemp(prefix="speakeasy-own-pg-", dir=base))
        shutil.copytree(cluster, self.dir / "data", symlinks=True)
        if os.getuid() == 0:
            subprocess.run(["chown", "-R", "postgres", str(self.dir)], check=True)
        self.url = f"postgresql://postgres@/postgres?host={self.dir}"

    @classmethod
    def from_cluster(cls) -> OwnPostgres | None:
        """A new server from the cached cluster, not started; ``None`` without the binaries or
        the cluster."""
        bin_dir = _pg_bin()
        cluster = ROOT / f".venv/postgres-cluster-{os.getuid()}"
        if bin_dir is None or not cluster.is_dir():
            return None
        return cls(bin_dir, cluster)

    def _ctl(self, *args: str) -> None:
        cmd = [f"{self.bin}/pg_ctl", "-D", str(self.dir / "data"), *args]
        if os.getuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._ctl("-l", str(self.dir / "server.log"), "-w", "-s", "-o",
                  f"-k {self.dir} -c listen_addresses='' -F -c full_page_writes=off -c synchronous_commit=off", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast`` or ``immediate``) and wait until it is down."""
        self._ctl("-m", mode, "-w", "-s", "stop")

    def remove(self) -> None:
        """Stop the server if it runs, and delete its folder."""
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)
