"""What keeps `tagpipe encode -o OUT` from destroying data: an output name that is a name (not a
directory), no output that is an input or the model, one writer per output name at a time,
and no temporary files left behind by runs that were killed.

    check_name(out)                 -o dir/ or -o an-existing-directory: refused
    refuse_inputs(outputs, keep)    an output that is (through links) a file to keep: refused
    OutputLock(lock_path)           an fcntl lock next to the outputs, held for the whole run
    remove_stale_partials(dests)    .NAME.partial-PID files of processes that are gone

Refusals raise `OutputError` (a ValueError: exit code 2 with the message).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Iterable, Optional, Sequence

PARTIAL = ".partial-"  # a temporary file is .NAME.partial-PID beside NAME


class OutputError(ValueError):
    """An output name that cannot be written safely; the message says why and what to do."""


def check_name(out: str) -> None:
    """`out` must name files, not a directory: `-o dir/` would write dir/.bin, dir/.idx and
    dir/.json (hidden files with no name), and `-o dir` for an existing directory is most
    likely meant as `-o dir/NAME`."""
    text = str(out)
    if text == "" or text.endswith(("/", os.sep)) or os.path.isdir(text):
        raise OutputError(
            f"-o {text!r}: an output name, not a directory (e.g. -o {os.path.join(text or '.', 'corpus')} "
            f"writes corpus.bin, corpus.idx and corpus.json there)"
        )


def _same(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def refuse_inputs(outputs: Iterable[Path], keep: Sequence[tuple[str, str]]) -> None:
    """Refuse when an output file is one of `keep`: (what, path) pairs such as ("the input",
    "data.json") or ("the model", "tok.json"), compared after resolving links."""
    for out in outputs:
        for what, path in keep:
            if path and path != "-" and _same(str(out), path):
                raise OutputError(
                    f"the output {str(out)!r} is {what} {path!r}: writing it would destroy it; choose another -o"
                )


class OutputLock:
    """An exclusive fcntl lock on `path` (a file beside the outputs), so two runs writing the
    same output name cannot interleave their renames; the file is removed on release.

    Taken without waiting: a second run fails at once, naming the first.  The kernel drops the
    lock of a process that dies (SIGKILL), so a stale lock file never blocks a later run.  After
    locking, the file must still be the one at `path` (a run that just finished removes it: then
    lock the new one)."""

    def __init__(self, path: Path):
        import fcntl

        self.path = path
        for _ in range(100):
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as err:
                holder = _read_pid(fd)
                os.close(fd)
                if err.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
                raise OutputError(
                    f"another process{f' (pid {holder})' if holder else ''} is writing this output "
                    f"(it holds {str(path)!r}); wait for it to finish, or choose another -o"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                self.fd: Optional[int] = fd
                return
            os.close(fd)
        raise OutputError(f"{str(path)!r}: could not take the output lock")

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            self.path.unlink()  # (before unlocking: whoever locks next locks a new file)
        except FileNotFoundError:
            pass
        os.close(self.fd)
        self.fd = None


def _read_pid(fd: int) -> Optional[int]:
    try:
        return int(os.pread(fd, 32, 0).decode().strip() or 0) or None
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def remove_stale_partials(dests: Iterable[Path]) -> list[Path]:
    """Remove the temporary files (.NAME.partial-PID) of `dests` left by runs whose process is
    gone (killed outright: SIGKILL, a crash, a power cut); a live process's are kept.  Returns
    what was removed."""
    removed = []
    for dest in dests:
        prefix = f".{dest.name}{PARTIAL}"
        for tmp in dest.parent.glob(f".{_glob_escape(dest.name)}{PARTIAL}*"):
            pid = tmp.name[len(prefix) :]
            if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                try:
                    tmp.unlink()
                    removed.append(tmp)
                except FileNotFoundError:
                    pass
    return removed


def _glob_escape(name: str) -> str:
    import glob

    return glob.escape(name)
