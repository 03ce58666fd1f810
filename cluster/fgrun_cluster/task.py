"""The task a Dask worker runs: one chunk of the manifest through one fgrun process.

The scheduler and every worker import this module (install the package there: `pip install
./cluster`), and each worker needs fgrun.
"""

import os
import shutil
import socket
import subprocess
import tempfile


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
    with tempfile.TemporaryDirectory(prefix="fgrun-chunk-") as folder:
        manifest = os.path.join(folder, "manifest.txt")
        report = os.path.join(folder, "report.jsonl")
        with open(manifest, "w", encoding="utf-8") as out:
            out.writelines(line + "\n" for line in lines)
        command = [program, recipe, "--manifest", manifest, "--resume", "--report", report, *fgrun_args]
        done = subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, errors="replace")
        if done.returncode not in (0, 1):
            raise FgrunFailed(
                f"fgrun exited with status {done.returncode} on {socket.gethostname()}: {done.stderr[-4000:].strip()}")
        with open(report, encoding="utf-8") as text:
            lines_out = [line.rstrip("\n") for line in text if line.strip()]
    return {"worker": _worker_name(), "status": done.returncode,
            "report": lines_out, "stderr": done.stderr[-4000:]}


def _worker_name():
    """The Dask worker's address, or host:pid outside a worker."""
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return f"{socket.gethostname()}:{os.getpid()}"
