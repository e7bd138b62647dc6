"""The Dask client that spreads independent tasks over processes: a LocalCluster here, or a
running cluster by its scheduler's address. One place, so that every command that offers
``--scheduler``/``--workers`` connects, names the cluster and fails on a bad address alike."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from spycfr.errors import SpycfrError


@contextmanager
def dask_client(scheduler: str | None, workers: int = 2, timeout: str = "20s",
                **local_options: Any) -> Iterator[tuple[Any, str]]:
    """Yield ``(client, text)``: a client of the scheduler at ``scheduler`` (``SpycfrError``
    when it cannot be reached within ``timeout``) or, without one, of a LocalCluster of
    ``workers`` single-threaded processes (``local_options`` go to LocalCluster); ``text``
    names the cluster for messages and records. Both are closed on leaving."""
    from distributed import Client, LocalCluster

    cluster = None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=timeout)
        except OSError as exc:  # TimeoutError included
            raise SpycfrError(f"cannot reach the Dask scheduler at {scheduler!r}: "
                              f"{str(exc)[:200]}") from None
        text = f"scheduler {scheduler}"
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, **local_options)
        text = f"a LocalCluster of {workers} worker process" + "es" * (workers > 1)
    try:
        if cluster is not None:
            client = Client(cluster)
        try:
            yield client, text
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
