"""fgrun_cluster: run an fgrun batch over the workers of a Dask distributed cluster.

The manifest is split into chunks of M lines; each chunk is one Dask task that runs
``fgrun RECIPE --manifest CHUNK --resume --report …`` on a worker, and the driver gathers the
per-file report lines into one report. Dask schedules, retries and tracks the tasks; fgrun's
atomic, resumable outputs make a retried chunk redo only what its lost attempt had not finished.
See docs/Batches.md.
"""

from .driver import main, run_batch
from .task import run_chunk

__all__ = ["main", "run_batch", "run_chunk"]
