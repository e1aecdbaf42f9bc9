"""heap_trim: the C heap's free pages go back to the system (glibc's malloc_trim)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform

import pytest

_glibc = platform.libc_ver()[0] == "glibc"


def rss_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not _glibc, reason="malloc_trim is glibc's")
def test_trim_gives_back_freed_heap_that_glibc_keeps_resident() -> None:
    from playground.ui.runtime import heap_trim

    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    block, count = 64 * 1024, 640  # 40 MiB in blocks under the mmap threshold: heap memory
    blocks = [libc.malloc(block) for _ in range(count)]
    assert all(blocks)
    for address in blocks:
        ctypes.memset(address, 1, block)  # resident
    pin = libc.malloc(block)  # a live block above them: glibc cannot shrink the heap's top
    ctypes.memset(pin, 1, block)
    for address in blocks:
        libc.free(address)
    before = rss_bytes()
    assert heap_trim.trim()
    after = rss_bytes()
    libc.free(pin)
    assert before - after > 20 * 1024 * 1024, (before, after)
    assert heap_trim.last_trim_ms() >= 0


def test_trim_is_a_no_op_where_the_c_library_has_none(monkeypatch: pytest.MonkeyPatch) -> None:
    from playground.ui.runtime import heap_trim

    monkeypatch.setattr(heap_trim, "_malloc_trim", None)
    assert heap_trim.trim() is False
