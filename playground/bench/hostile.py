"""The hostile group: peak memory over input size for streams built to hurt a reader.

Each input (``hostile_inputs.py``: an endless line, unreadable events, deep tool arguments) goes
through ``playground inspect`` and through the window (headless, offscreen, a replay at full
speed), each in a fresh child process; the child's peak RSS comes from ``os.wait4`` in a small
launcher (``_LAUNCHER``). The figure
is the memory a reader adds for the input: (peak RSS on the input - peak RSS on the same kind of
input of 1 KB) / input bytes. A reader that holds a fixed multiple of what it read scores that
multiple whatever the size; one that keeps a record per bad event, or lays out by depth, scores
far more (the issue measured 130 for unreadable events and unbounded for deep JSON).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from playground.bench.hostile_inputs import BUILDERS

__all__ = ["hostile_figures"]

Value = float | str
_TINY = 1024
_TIMEOUT_S = 300.0


# Linux starts a new process's peak RSS at its parent's size at the fork, so the benchmark's own
# memory (the inputs it built) would floor every figure: a small launcher starts each reader and
# reports that child's own peak (os.wait4), its stdout sent to /dev/null.
_LAUNCHER = """
import os, sys
null = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, file_actions=null)
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def _peak_rss(argv: list[str], env: dict[str, str], cwd: str) -> int:
    """The child's peak resident set in bytes (Linux gives ru_maxrss in KiB); raises when the
    child fails, so a broken reader is an n/a figure, not a small number."""
    with tempfile.TemporaryFile() as err:
        done = subprocess.run(
            [sys.executable, "-S", "-c", _LAUNCHER, *argv],
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=err,
            timeout=_TIMEOUT_S + 60,
            check=False,
        )
        words = done.stdout.split()
        if done.returncode != 0 or len(words) != 2 or words[1] != b"0":
            err.seek(0)
            lines = err.read().decode("utf-8", "replace").splitlines()
            tail = [line for line in lines if line.strip()][-1:] or ["no output"]
            raise RuntimeError(f"{Path(argv[-1]).name}: {tail[0][:200]}")
    return int(words[0]) * 1024


def _env(home: str) -> dict[str, str]:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    env["PLAYGROUND_NO_AUDIO"] = "1"
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[var] = os.path.join(home, var.lower())  # a first run's folders, never the user's
    for var in ("PLAYGROUND_DATA_DIR", "PLAYGROUND_SETTINGS"):
        env.pop(var, None)
    return env


def _argv(reader: str, path: Path, home: str) -> list[str]:
    if reader == "inspect":
        return [sys.executable, "-m", "playground", "inspect", "--route", "chat", str(path)]
    dump = os.path.join(home, path.stem + ".json")
    return [
        sys.executable,
        "-m",
        "playground",
        "--route",
        "chat",
        "--speed",
        "0",
        "--exit-when-done",
        "--timeout",
        str(int(_TIMEOUT_S)),
        "--dump-state",
        dump,
        "--replay",
        str(path),
    ]


def hostile_figures(size: int) -> dict[str, Value]:
    """``hostile_{kind}_rss_ratio_{reader}`` for each input kind and reader, and
    ``hostile_{kind}_rss_ratio``: the worse of the two readers (the goal's figure)."""
    out: dict[str, Value] = {}
    with tempfile.TemporaryDirectory(prefix="playground-hostile-") as home:
        env = _env(home)
        for kind, build in BUILDERS.items():
            big, tiny = Path(home, f"{kind}.sse"), Path(home, f"{kind}-tiny.sse")
            big.write_bytes(build(size))
            tiny.write_bytes(build(_TINY))
            ratios: list[float] = []
            for reader in ("inspect", "window"):
                name = f"hostile_{kind}_rss_ratio_{reader}"
                try:
                    # The smaller of two: a first run may compile the modules' bytecode.
                    base = min(_peak_rss(_argv(reader, tiny, home), env, home) for _ in "ab")
                    peak = _peak_rss(_argv(reader, big, home), env, home)
                except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
                    out[name] = f"n/a ({exc})"
                    continue
                ratio = max(0.0, peak - base) / big.stat().st_size
                out[name] = round(ratio, 2)
                out[f"hostile_{kind}_peak_mb_{reader}"] = round(peak / 1e6, 1)
                ratios.append(ratio)
            if len(ratios) == 2:
                out[f"hostile_{kind}_rss_ratio"] = round(max(ratios), 2)
            else:
                out[f"hostile_{kind}_rss_ratio"] = "n/a (a reader failed)"
            out[f"hostile_{kind}_input_mb"] = round(big.stat().st_size / 1e6, 1)
            big.unlink()
    return out
