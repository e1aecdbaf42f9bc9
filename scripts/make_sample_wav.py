"""Regenerate resources/samples/hello.wav: a sentence in the simulator's own voice."""

from __future__ import annotations

import sys
from pathlib import Path

from playground.sim import voice
from playground.sim.routes.audio import transcribe

SENTENCE = "Hello from the playground. This sentence was spoken by the simulator."


def main() -> int:
    samples = Path(__file__).resolve().parents[1] / "resources" / "samples"
    target = samples / "hello.wav"
    data = voice.wav(voice.pcm(SENTENCE))
    # The simulator transcribes its own speech back to the text, so the sample must too.
    if transcribe(data) != SENTENCE:
        print("the simulator does not transcribe its own speech back", file=sys.stderr)
        return 1
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    print(f"{target} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
