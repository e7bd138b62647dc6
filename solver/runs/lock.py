"""A lock on a run directory while a solve writes it: a second writer gets a one-line error
instead of interleaving its files with the first one's."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from spycfr.errors import SpycfrError

LOCK = ".spycfr.lock"


class RunLock:
    """An exclusive advisory lock (flock) on ``RUN_DIR/.spycfr.lock``: released when the
    process ends, however it ends, so a killed writer never leaves a stale lock."""

    def __init__(self, run_dir: str | os.PathLike) -> None:
        self.path = Path(run_dir) / LOCK
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        while True:
            fd = self._locked_fd()
            # A writer that just finished unlinks the file it locked; a lock taken on that
            # unlinked file would not exclude the next writer: try again on the new one.
            try:
                if os.fstat(fd).st_ino == os.stat(self.path).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._fd = fd
        return self

    def _locked_fd(self) -> int:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise SpycfrError(f"cannot lock the run directory {str(self.path.parent)!r}: "
                              f"{exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            finally:
                os.close(fd)
            raise SpycfrError(
                f"another spycfr (pid {holder}) is writing the run directory "
                f"{str(self.path.parent)!r}; wait for it or choose another -o") from None
        return fd

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            # Leave no file behind; the run directory holds only the run's files.
            self.path.unlink(missing_ok=True)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
