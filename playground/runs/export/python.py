"""A run's request as a Python script (openai SDK, anthropic's for messages) that runs as written.

`python script.py` after `pip install openai` (or anthropic): the key and base URL come from the
environment, reasoning, thinking, text and tool calls print as they stream, and an uploaded file
is the script's command-line argument.
"""

from __future__ import annotations

import pprint
import textwrap
from collections.abc import Callable, Mapping
from typing import Any

from playground.protocol.requests import route_spec
from playground.runs.export.common import (
    BASE_URL_VAR,
    Run,
    comment_text,
    file_extension,
    read_run,
)
from playground.runs.export.sdk_params import SDK_PARAMS

__all__ = ["to_python"]


def _py(value: Any, indent: int = 0) -> str:
    """``value`` as a Python literal: the one way anything from a capture enters the script.

    pprint writes every string, number and container with ``repr``, which escapes quotes,
    backslashes, newlines, NUL and every character that does not print, so no value can close
    its literal or open an f-string field."""
    text = pprint.pformat(value, indent=1, width=max(40, 96 - indent), sort_dicts=False)
    return text.replace("\n", "\n" + " " * indent)


def _kwargs(route: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    known = SDK_PARAMS.get(route, frozenset())
    lines = []
    extra: dict[str, Any] = {}
    for key, value in body.items():
        if key in known:
            lines.append(f"    {key}={_py(value, 4 + len(key) + 1)},")
        else:
            extra[key] = value
    if extra:
        lines.append(f"    extra_body={_py(extra, 15)},")
    if headers:
        lines.append(f"    extra_headers={_py(dict(headers), 18)},")
    return "\n".join(lines)


def _key_expr(run: Run) -> str:
    if run.auth is None:
        # The run sent no key (the built-in simulator): the SDK still wants a non-empty one.
        return f'os.environ.get("{run.env_var}") or "not-needed"'
    # The variable's name is the provider profile's own (providers.py), never the capture's.
    return f'os.environ["{run.env_var}"]'


def _wrap(line: str) -> list[str]:
    """A header comment line in lines that fit 96 columns (commands are short and stay whole)."""
    return textwrap.wrap(line, 96, break_on_hyphens=False, break_long_words=False) or [""]


def _header(run: Run, package: str) -> str:
    name = f"{run.route}.py"
    args = " AUDIO_FILE" if run.route == "transcription" else ""
    lines = [
        f"{route_spec(run.route).title} request exported by playground; it runs as written:",
        f"    pip install {package}",
        f"    python {name}{args}",
        *run.notes(),
    ]
    return "".join(f"# {part}\n" for line in lines for part in _wrap(comment_text(line))) + "\n"


def _base(run: Run) -> str:
    return f'BASE_URL = os.environ.get("{BASE_URL_VAR}") or {_py(run.base_url)}\n'


# Streamed text under a heading each time its kind changes (reasoning, answer, a tool call).
_SHOW = '''
shown = [None]


def show(kind, text):
    """Print streamed text as it comes, under a heading each time the kind of text changes."""
    if kind != shown[0]:
        print(("\\n" if shown[0] else "") + f"[{kind}]", flush=True)
        shown[0] = kind
    print(text, end="", flush=True)


def say(line):
    """A line of its own after the streamed text (finish reason, usage)."""
    if shown[0]:
        print()
        shown[0] = None
    print(line, flush=True)


'''


def to_python(request: Mapping[str, Any], route: str) -> str:
    """A script with the openai SDK (anthropic's for messages) that streams and prints the run."""
    run = read_run(request, route)
    if route == "music":
        return _header(run, "httpx") + _music(run)
    if route == "messages":
        head = (
            "import os\n\nimport anthropic\n\n"
            + _base(run)
            + "# The Anthropic SDK adds /v1 itself.\n"
            f'client = anthropic.Anthropic(base_url=BASE_URL.removesuffix("/v1"), '
            f"api_key={_key_expr(run)})\n"
        )
        return _header(run, "anthropic") + head + _BODIES[route](run)
    imports = {
        "images": "import base64\nimport os\n",
        "speech": "import base64\nimport json\nimport os\n",
        "transcription": "import os\nimport sys\n",
    }.get(route, "import os\n")
    head = (
        f"{imports}\nfrom openai import OpenAI\n\n"
        + (_argv_check(run) if route == "transcription" else "")
        + _base(run)
        + f"client = OpenAI(base_url=BASE_URL, api_key={_key_expr(run)})\n"
    )
    return _header(run, "openai") + head + _BODIES[route](run)


def _chat(run: Run) -> str:
    call = f"client.chat.completions.create(\n{_kwargs('chat', run.fields, run.headers)}\n)\n"
    if not run.stream:
        return f"\nresponse = {call}print(response.model_dump_json(indent=2))\n"
    return (
        _SHOW + f"stream = {call}" + "tool_names = {}\n"
        "finished = set()\n"
        "for chunk in stream:\n"
        "    for choice in chunk.choices:\n"
        "        delta = choice.delta\n"
        "        # Reasoning is not in the SDK's types: gateways stream it as delta.reasoning\n"
        "        # (the seed pages) or delta.reasoning_content; the SDK keeps such fields.\n"
        '        reasoning = getattr(delta, "reasoning", None) or getattr(\n'
        '            delta, "reasoning_content", None\n'
        "        )\n"
        "        if reasoning:\n"
        '            show("reasoning", reasoning)\n'
        "        if delta.content:\n"
        '            show("answer", delta.content)\n'
        "        for call in delta.tool_calls or []:\n"
        "            if call.function and call.function.name:\n"
        "                tool_names[(choice.index, call.index)] = call.function.name\n"
        '                show(f"tool call {call.function.name}", "")\n'
        "            if call.function and call.function.arguments:\n"
        "                name = tool_names.get((choice.index, call.index), call.index)\n"
        '                show(f"tool call {name}", call.function.arguments)\n'
        "        if choice.finish_reason and choice.index not in finished:\n"
        "            finished.add(choice.index)\n"
        '            say(f"finish_reason: {choice.finish_reason}")\n'
        "    if chunk.usage:\n"
        "        usage = chunk.usage\n"
        '        say(f"usage: {usage.prompt_tokens} in, {usage.completion_tokens} out")\n'
    )


def _responses(run: Run) -> str:
    call = f"client.responses.create(\n{_kwargs('responses', run.fields, run.headers)}\n)\n"
    if not run.stream:
        return f"\nresponse = {call}print(response.output_text)\n"
    return (
        _SHOW + f"stream = {call}" + "tool_names = {}\n"
        "for event in stream:\n"
        '    if event.type in ("response.reasoning_text.delta", '
        '"response.reasoning_summary_text.delta"):\n'
        '        show("reasoning", event.delta)\n'
        '    elif event.type == "response.output_text.delta":\n'
        '        show("answer", event.delta)\n'
        '    elif event.type == "response.output_item.added" and event.item.type == '
        '"function_call":\n'
        "        tool_names[event.item.id] = event.item.name\n"
        '        show(f"tool call {event.item.name}", "")\n'
        '    elif event.type == "response.function_call_arguments.delta":\n'
        '        show(f"tool call {tool_names.get(event.item_id, event.item_id)}", event.delta)\n'
        '    elif event.type in ("response.completed", "response.incomplete", '
        '"response.failed"):\n'
        '        say(f"status: {event.response.status}")\n'
        "        usage = event.response.usage\n"
        "        if usage:\n"
        '            say(f"usage: {usage.input_tokens} in, {usage.output_tokens} out")\n'
        '    elif event.type == "error":\n'
        '        say(f"error: {event.message}")\n'
    )


def _messages(run: Run) -> str:
    call = f"client.messages.create(\n{_kwargs('messages', run.fields, run.headers)}\n)\n"
    if not run.stream:
        return f"\nmessage = {call}print(message.model_dump_json(indent=2))\n"
    return (
        _SHOW + f"stream = {call}" + "blocks = {}\n"
        "for event in stream:\n"
        '    if event.type == "content_block_start" and event.content_block.type == "tool_use":\n'
        '        blocks[event.index] = f"tool call {event.content_block.name}"\n'
        '        show(blocks[event.index], "")\n'
        '    elif event.type == "content_block_delta":\n'
        '        if event.delta.type == "thinking_delta":\n'
        '            show("thinking", event.delta.thinking)\n'
        '        elif event.delta.type == "text_delta":\n'
        '            show("answer", event.delta.text)\n'
        '        elif event.delta.type == "input_json_delta":\n'
        '            show(blocks.get(event.index, "tool call"), event.delta.partial_json)\n'
        '    elif event.type == "message_delta":\n'
        '        say(f"stop_reason: {event.delta.stop_reason}")\n'
        '        say(f"usage: {event.usage.output_tokens} out")\n'
    )


def _images(run: Run) -> str:
    body = run.fields
    ext = _py("." + file_extension(body.get("output_format"), "png"))
    call = f"client.images.generate(\n{_kwargs('images', body, run.headers)}\n)\n"
    if not run.stream:
        return (
            f"\nresponse = {call}"
            "for i, image in enumerate(response.data):\n"
            f'    name = f"image_{{i}}" + {ext}\n'
            '    with open(name, "wb") as out:\n'
            "        out.write(base64.b64decode(image.b64_json))\n"
            '    print("saved", name)\n'
        )
    return (
        f"\nstream = {call}"
        "for event in stream:\n"
        '    if event.type == "image_generation.partial_image":\n'
        f'        name = f"partial_{{event.partial_image_index}}" + {ext}\n'
        '    elif event.type == "image_generation.completed":\n'
        f'        name = "image" + {ext}\n'
        "    else:\n"
        "        continue\n"
        '    with open(name, "wb") as out:\n'
        "        out.write(base64.b64decode(event.b64_json))\n"
        '    print("saved", name)\n'
    )


def _speech(run: Run) -> str:
    body = run.fields
    name = _py("speech." + file_extension(body.get("response_format"), "mp3"))
    head = (
        "\nwith client.audio.speech.with_streaming_response.create(\n"
        f"{_kwargs('speech', body, run.headers)}\n"
        f') as response, open({name}, "wb") as out:\n'
    )
    if body.get("stream_format") == "sse":
        # Seed "Other streams": speech.audio.delta events carry base64 audio.
        loop = (
            "    for line in response.iter_lines():\n"
            '        if not line.startswith("data: ") or line == "data: [DONE]":\n'
            "            continue\n"
            "        event = json.loads(line[6:])\n"
            '        if event.get("type") == "speech.audio.delta":\n'
            '            out.write(base64.b64decode(event["audio"]))\n'
            '        elif event.get("type") == "speech.audio.done":\n'
            '            print("usage:", event.get("usage"))\n'
        )
    else:
        loop = "    for chunk in response.iter_bytes():\n        out.write(chunk)\n"
    return head + loop + f'print("saved", {name})\n'


def _argv_check(run: Run) -> str:
    """The uploaded file is the script's argument (the run's own file is not where it runs)."""
    return (
        "if len(sys.argv) != 2:\n"
        '    sys.exit(f"usage: python {sys.argv[0]} AUDIO_FILE  (the run sent "\n'
        f'             + {_py(run.filename, 13)} + ")")\n\n'
    )


def _transcription(run: Run) -> str:
    kwargs = _kwargs("transcription", run.fields, run.headers).replace("\n", "\n    ")
    call = f"client.audio.transcriptions.create(\n        file=audio,\n    {kwargs}\n    )\n"
    head = '\nwith open(sys.argv[1], "rb") as audio:\n'
    if not run.stream:
        return head + f"    transcript = {call}print(transcript)\n"
    return (
        head + f"    stream = {call}"
        "    for event in stream:\n"
        '        if event.type == "transcript.text.delta":\n'
        '            print(event.delta, end="", flush=True)\n'
        '        elif event.type == "transcript.text.done":\n'
        "            print()\n"
    )


def _music(run: Run) -> str:
    auth = ""
    if run.auth == "bearer":
        auth = f'    "Authorization": f"Bearer {{os.environ[{_py(run.env_var)}]}}",\n'
    elif run.auth == "x-api-key":
        auth = f'    "x-api-key": os.environ[{_py(run.env_var)}],\n'
    extra_lines = "".join(f"    {_py(n)}: {_py(v, 4)},\n" for n, v in run.headers.items())
    path = _py(run.path)
    return (
        "import json\nimport os\nimport sys\nimport time\n\nimport httpx\n\n"
        + _base(run)
        + "# Music is an async job API that no SDK covers: create the job, follow it, download.\n"
        f"headers = {{\n{auth}{extra_lines}}}\n"
        f"body = {_py(run.fields, 7)}\n"
        "job = None\n"
        f'with httpx.stream("POST", BASE_URL + {path}, headers=headers, json=body, '
        "timeout=None) as response:\n"
        "    if response.status_code != 200:\n"
        '        sys.exit(f"HTTP {response.status_code}: {response.read().decode()}")\n'
        '    if response.headers.get("content-type", "").startswith("text/event-stream"):\n'
        "        for line in response.iter_lines():\n"
        '            if line.startswith("data: ") and line != "data: [DONE]":\n'
        "                event = json.loads(line[6:])\n"
        '                print(event.get("type"), event.get("progress", ""), flush=True)\n'
        '                job = event.get("job", job)\n'
        "    else:\n"
        "        job = json.loads(response.read())\n"
        'print("job", job["id"], job["status"])\n'
        'while job["status"] not in ("completed", "failed"):\n'
        "    time.sleep(1)\n"
        f'    job = httpx.get(BASE_URL + {path} + "/" + job["id"], headers=headers).json()\n'
        '    print("job", job["id"], job["status"], job.get("progress", ""), flush=True)\n'
        'if job["status"] != "completed":\n'
        "    sys.exit(f\"the job ended {job['status']}\")\n"
        'audio = httpx.get(job["audio_url"], headers=headers, timeout=None)\n'
        'with open("music.wav", "wb") as out:\n'
        "    out.write(audio.content)\n"
        'print("saved music.wav")\n'
    )


_BODIES: dict[str, Callable[[Run], str]] = {
    "chat": _chat,
    "responses": _responses,
    "messages": _messages,
    "images": _images,
    "speech": _speech,
    "transcription": _transcription,
}
