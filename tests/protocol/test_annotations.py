"""Citations kept in the state and shown in the timeline; bad base64 reported at its event."""

from __future__ import annotations

import json

from protocol_helpers import decode

from playground.protocol.stream import StreamDecoder
from playground.protocol.summary import summarize

CITE = {
    "type": "url_citation",
    "url": "https://example.com/rain",
    "title": "Rain",
    "start_index": 0,
    "end_index": 4,
}


def typed(*payloads: dict[str, object]) -> bytes:
    out = []
    for p in payloads:
        out.append(f"event: {p['type']}\ndata: {json.dumps(p)}\n\n")
    return "".join(out).encode()


def responses_stream(*, streamed: bool) -> bytes:
    part = {"type": "output_text", "text": "Rain", "annotations": [CITE]}
    events: list[dict[str, object]] = [
        {"type": "response.created", "sequence_number": 0, "response": {}},
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": {"id": "m1", "type": "message", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "sequence_number": 2,
            "item_id": "m1",
            "output_index": 0,
            "content_index": 0,
            "delta": "Rain",
        },
    ]
    if streamed:
        events.append(
            {
                "type": "response.output_text.annotation.added",
                "sequence_number": 3,
                "item_id": "m1",
                "output_index": 0,
                "content_index": 0,
                "annotation_index": 0,
                "annotation": CITE,
            }
        )
    n = len(events)
    events += [
        {
            "type": "response.output_item.done",
            "sequence_number": n,
            "output_index": 0,
            "item": {"id": "m1", "type": "message", "content": [part]},
        },
        {"type": "response.completed", "sequence_number": n + 1, "response": {"usage": {}}},
    ]
    return typed(*events)


def test_responses_annotations_streamed_are_kept_once() -> None:
    decoder = decode(responses_stream(streamed=True))
    state = decoder.state
    assert state.status == "complete" and state.text == "Rain"
    assert state.annotations == [CITE]  # not again from output_item.done
    assert [f.code for f in state.findings] == []
    line = summarize(decoder.items[3], decoder.payload(3))
    assert line == 'citation "Rain" https://example.com/rain'


def test_responses_annotations_only_in_the_done_item_are_kept() -> None:
    state = decode(responses_stream(streamed=False)).state
    assert state.annotations == [CITE]


def test_chat_annotations_are_flattened_and_summarized() -> None:
    chunk = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "content": "Rain",
                    "annotations": [
                        {"type": "url_citation", "url_citation": {k: v for k, v in CITE.items()}}
                    ],
                },
            }
        ]
    }
    data = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
    decoder = decode(data)
    assert decoder.state.text == "Rain"
    assert decoder.state.annotations == [CITE]
    assert summarize(decoder.items[0], decoder.payload(0)) == (
        'text "Rain", citation "Rain" https://example.com/rain'
    )


def test_bad_base64_is_reported_when_its_event_arrives() -> None:
    bad = {"type": "speech.audio.delta", "audio": "AAAA$$$$"}
    good = {"type": "speech.audio.delta", "audio": "AAAA"}
    decoder = StreamDecoder()
    decoder.feed(f"data: {json.dumps(good)}\n\n".encode(), 0.0)
    decoder.feed(f"data: {json.dumps(bad)}\n\n".encode(), 0.1)
    # Before the stream ends: the finding is already on item 1.
    assert [(f.code, f.item) for f in decoder.state.findings] == [("bad_base64", 1)]
    assert [f.code for f in decoder.findings_for(1)] == ["bad_base64"]
    decoder.feed(b'data: {"type":"speech.audio.done"}\n\n', 0.2)
    decoder.finish(0.3)
    assert [f.code for f in decoder.state.findings].count("bad_base64") == 1
