"""The task a Dask worker runs: one chunk of the manifest through one fgrun process.

The scheduler and every worker import this module (install the package there: `pip install
./cluster`), and each worker needs fgrun.
"""

import ctypes
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile

CHUNK_PREFIX = "fgrun-chunk-"
PR_SET_PDEATHSIG = 1


class FgrunMissing(RuntimeError):
    """fgrun is not on this worker's PATH (or not at --fgrun PATH)."""


class FgrunFailed(RuntimeError):
    """fgrun stopped before running the chunk (a usage or recipe error, a crash)."""


def run_chunk(lines, recipe, fgrun_args, fgrun="fgrun", cwd=None):
    """Runs ``fgrun RECIPE --manifest CHUNK --resume --report REPORT FGRUN_ARGS…`` over ``lines``.

    Returns a dict: ``worker`` (this Dask worker's address), ``status`` (fgrun's exit
    status: 0, or 1 when some files failed), ``report`` (the JSON lines fgrun wrote, one per
    input) and ``stderr`` (its last 4000 characters).

    Raises FgrunMissing when fgrun cannot be found, FgrunFailed when it exits with any other
    status (nothing in the chunk was attempted: a bad option or recipe, or a crash).
    """
    program = fgrun if os.sep in fgrun else shutil.which(fgrun)
    if program is None or not os.access(program, os.X_OK):
        raise FgrunMissing(
            f"fgrun was not found on worker {socket.gethostname()} (looked for {fgrun!r}"
            f"{'' if os.sep in fgrun else ' on PATH'}): install it there or pass --fgrun PATH")
    remove_stale_chunks()
    # The folder's name carries this process's id, so a later task (or the driver's sweep) can
    # remove it if this worker is killed before TemporaryDirectory cleans it up.
    with tempfile.TemporaryDirectory(prefix=f"{CHUNK_PREFIX}{os.getpid()}-") as folder:
        manifest = os.path.join(folder, "manifest.txt")
        report = os.path.join(folder, "report.jsonl")
        with open(manifest, "w", encoding="utf-8") as out:
            out.writelines(line + "\n" for line in lines)
        command = [program, recipe, "--manifest", manifest, "--resume", "--report", report, *fgrun_args]
        done = subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, errors="replace", preexec_fn=_die_with_parent)
        if done.returncode not in (0, 1):
            raise FgrunFailed(
                f"fgrun exited with status {done.returncode} on {socket.gethostname()}: {done.stderr[-4000:].strip()}")
        with open(report, encoding="utf-8") as text:
            lines_out = [line.rstrip("\n") for line in text if line.strip()]
    return {"worker": _worker_name(), "status": done.returncode,
            "report": lines_out, "stderr": done.stderr[-4000:]}


def _die_with_parent():
    """In the fgrun child, before exec: SIGKILL it when the process that started it dies (Linux's
    PR_SET_PDEATHSIG), so a killed Dask worker leaves no fgrun running on. (The signal follows
    the starting thread; a worker's task thread waits in subprocess.run for as long as fgrun
    runs.)"""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


def remove_stale_chunks(folder=None):
    """Removes chunk folders (CHUNK_PREFIX + pid + …) of processes that no longer exist on this
    machine: what a killed worker left behind. Returns how many were removed."""
    removed = 0
    for path in glob.glob(os.path.join(folder or tempfile.gettempdir(), CHUNK_PREFIX + "*")):
        owner = os.path.basename(path)[len(CHUNK_PREFIX):].split("-", 1)[0]
        if not owner.isdigit() or _alive(int(owner)):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += 1
    return removed


def _alive(pid):
    """Whether process `pid` exists on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _worker_name():
    """The Dask worker's address, or host:pid outside a worker."""
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return f"{socket.gethostname()}:{os.getpid()}"
