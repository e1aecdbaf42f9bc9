"""A pleasant procedural song from a prompt: chords, a bass line and a pentatonic melody."""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Iterator

from playground.sim.context import seed_of

RATE = 24_000
_TABLE_SIZE = 2048
# A soft, organ-like timbre: a few harmonics in one wavetable cycle.
_TABLE = [
    math.sin(2 * math.pi * i / _TABLE_SIZE)
    + 0.35 * math.sin(4 * math.pi * i / _TABLE_SIZE)
    + 0.12 * math.sin(6 * math.pi * i / _TABLE_SIZE)
    for i in range(_TABLE_SIZE)
]
_PENTATONIC = [0, 2, 4, 7, 9]
_PROGRESSIONS = [[0, 7, 9, 5], [0, 5, 7, 5], [9, 5, 0, 7], [0, 9, 5, 7]]  # I-V-vi-IV and friends
_MAJOR_TRIAD = {0: (0, 4, 7), 5: (5, 9, 12), 7: (7, 11, 14), 9: (9, 12, 16)}


def _freq(midi: float) -> float:
    return 440.0 * 2 ** ((midi - 69) / 12)


def _tone(out: list[float], start: int, length: int, freq: float, loud: float) -> None:
    """Add one note (wavetable oscillator, attack/release envelope) into `out`."""
    step = freq * _TABLE_SIZE / RATE
    attack, release = int(RATE * 0.01), max(1, int(length * 0.6))
    phase = 0.0
    end = min(len(out), start + length)
    table = _TABLE
    for i in range(start, end):
        k = i - start
        env = min(1.0, k / attack if attack else 1.0) * min(1.0, (length - k) / release)
        out[i] += table[int(phase) % _TABLE_SIZE] * env * loud
        phase += step


class Song:
    """The score for a prompt; `chunks()` renders it bar by bar as 16-bit LE PCM."""

    def __init__(self, prompt: str, seconds: float) -> None:
        rng = random.Random(seed_of("music", prompt))
        self.seconds = max(1.0, seconds)
        self.tempo = rng.choice([84, 92, 100, 108, 116])
        self.key = 57 + rng.randint(0, 7)  # A3 .. E4
        self.progression = rng.choice(_PROGRESSIONS)
        self.seed = seed_of("melody", prompt)
        self.total_samples = int(self.seconds * RATE)

    @property
    def beat_samples(self) -> int:
        return int(RATE * 60 / self.tempo)

    @property
    def bar_samples(self) -> int:
        return self.beat_samples * 4

    def _bar(self, bar: int) -> list[float]:
        rng = random.Random(self.seed + bar)
        out = [0.0] * self.bar_samples
        root = self.progression[bar % len(self.progression)]
        beat = self.beat_samples
        for note in _MAJOR_TRIAD[root]:  # a soft pad chord
            _tone(out, 0, self.bar_samples, _freq(self.key + note - 12), 0.06)
        for b in range(4):  # a walking bass on each beat
            _tone(out, b * beat, beat, _freq(self.key + root - 24 + (7 if b % 2 else 0)), 0.16)
        pos = 0
        while pos < self.bar_samples:  # the melody: pentatonic steps, eighths and quarters
            length = beat // 2 if rng.random() < 0.6 else beat
            degree = rng.choice(_PENTATONIC) + (12 if rng.random() < 0.3 else 0)
            if rng.random() > 0.12:
                _tone(out, pos, length, _freq(self.key + degree), 0.2)
            pos += length
        return out

    def chunks(self) -> Iterator[bytes]:
        """One bar of PCM at a time (the last one cut to the song's length, with a fade)."""
        done = 0
        bar = 0
        while done < self.total_samples:
            samples = self._bar(bar)[: self.total_samples - done]
            left = self.total_samples - done
            fade = int(RATE * 1.5)
            pcm = array("h")
            for i, x in enumerate(samples):
                gain = min(1.0, (left - i) / fade) if left - i < fade else 1.0
                pcm.append(max(-32767, min(32767, int(x * gain * 32767))))
            if array("h", [1]).tobytes()[0] != 1:
                pcm.byteswap()
            yield pcm.tobytes()
            done += len(samples)
            bar += 1

    def bar_count(self) -> int:
        return -(-self.total_samples // self.bar_samples)
