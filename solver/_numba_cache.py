"""Keep numba's on-disk cache consistent with the sources.

numba's cache checks only the source file of the cached function itself, so a kernel that
inlines functions from another module (the enumerator calls the rules, best response calls
the CFR passes) would keep running stale machine code after that other module changes.
Before anything compiles, hash every source file of the package that holds numba code; when
the hash differs from the one recorded with the cache, drop all cached kernels of the package.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

STAMP = "numba-sources.sha256"


def guard_cache(package_dir: Path) -> None:
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        text = path.read_bytes()
        if b"numba" in text:
            digest.update(str(path.relative_to(package_dir)).encode())
            digest.update(text)
    stamp_path = package_dir / "__pycache__" / STAMP
    try:
        if stamp_path.read_text() == digest.hexdigest():
            return
    except OSError:
        pass
    try:
        for cached in package_dir.rglob("__pycache__/*.nb[ic]"):
            cached.unlink(missing_ok=True)
        stamp_path.parent.mkdir(exist_ok=True)
        stamp_path.write_text(digest.hexdigest())
    except OSError:  # a read-only install: numba then caches elsewhere or not at all
        pass
