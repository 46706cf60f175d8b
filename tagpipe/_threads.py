"""How many native threads a call with ``num_threads=None`` uses: every core, or one inside
a data engine's worker process, where the engine already runs one worker per core.

Below the tokenizer in the import layers (tests/test_layers.py): `Tokenizer` asks it, and
the engine helpers (tagpipe.integrations) re-export it.
"""

from __future__ import annotations

import os
import sys
from typing import Optional


def engine_worker() -> Optional[str]:
    """The kind of engine worker this process is, or None on a driver / a plain process:
    "spark" (a PySpark Python worker), "ray" (a Ray worker), "pool" (a daemonic process of a
    multiprocessing / multiprocess pool: datasets' num_proc, torch DataLoader workers)."""
    mods = sys.modules
    spec = getattr(mods.get("__main__"), "__spec__", None)
    if spec is not None and (spec.name or "").startswith("pyspark."):  # python -m pyspark.daemon / .worker
        return "spark"
    ray = mods.get("ray")
    if ray is not None:
        try:
            worker = ray._private.worker
            if worker.global_worker.mode == worker.WORKER_MODE:
                return "ray"
        except Exception:  # noqa: BLE001 (another Ray layout: not a worker we know)
            pass
    for name in ("multiprocess", "multiprocessing"):
        mp = mods.get(name)
        if mp is not None:
            try:
                if mp.current_process().daemon:
                    return "pool"
            except Exception:  # noqa: BLE001
                pass
    return None


def default_threads() -> int:
    """The native threads a call with num_threads=None uses: 1 inside an engine worker
    (`engine_worker`: the engine already runs one worker per core), else every core."""
    return 1 if engine_worker() else os.cpu_count() or 1
