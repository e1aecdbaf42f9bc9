"""Where a run's figures came from: the CPU, Python, the peers' versions, the parser build."""

from __future__ import annotations

import os
import platform


def machine() -> dict[str, str]:
    """Where the figures came from."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    versions = {}
    for dist in ("PySide6", "httpx", "httpx-sse", "openai", "sseclient-py", "orjson"):
        try:
            from importlib.metadata import version

            versions[dist] = version(dist)
        except Exception:
            versions[dist] = "?"
    from playground.protocol import is_compiled, sse

    return {
        "cpu": cpu,
        "nproc": str(os.cpu_count() or "?"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        # Which SSE parser ran: the mypyc build setup.py makes, or its source (no C compiler).
        "parser": "mypyc" if is_compiled(sse) else "source",
        **versions,
    }
