"""A run's request as curl, Python (openai / anthropic SDK) or TypeScript; pure string builders.

The key is always an environment variable reference (issue 6: "never its value"): the request
read from a capture carries redacted headers only, and credential headers are rebuilt from the
provider's env var, never copied.
"""

from __future__ import annotations

import json
import pprint
import re
import shlex
from collections.abc import Mapping
from typing import Any

from playground.protocol.requests import route_spec
from playground.transport.providers import provider_for_url
from playground.transport.redact import SECRET_HEADERS

__all__ = ["FORMATS", "ExportError", "export_request", "to_curl", "to_python", "to_typescript"]

FORMATS = ("curl", "python", "typescript")

# Headers the SDKs and curl set themselves, or that carry the key: never copied from the run.
_SKIP_HEADERS = SECRET_HEADERS | {
    "content-type",
    "content-length",
    "accept",
    "accept-encoding",
    "user-agent",
    "host",
    "connection",
    "anthropic-version",
}

# Parameters each SDK method has taken for a long time; anything else goes in extra_body so
# an older or newer SDK still sends it unchanged.
_SDK_PARAMS: dict[str, frozenset[str]] = {
    "chat": frozenset(
        [
            "messages",
            "model",
            "stream",
            "temperature",
            "max_tokens",
            "max_completion_tokens",
            "reasoning_effort",
            "tools",
            "tool_choice",
            "n",
            "stream_options",
            "top_p",
            "stop",
            "seed",
            "response_format",
            "parallel_tool_calls",
            "user",
            "logprobs",
            "top_logprobs",
            "presence_penalty",
            "frequency_penalty",
            "metadata",
            "store",
        ]
    ),
    "responses": frozenset(
        [
            "input",
            "model",
            "instructions",
            "stream",
            "temperature",
            "max_output_tokens",
            "reasoning",
            "tools",
            "tool_choice",
            "top_p",
            "text",
            "store",
            "metadata",
            "parallel_tool_calls",
            "previous_response_id",
            "include",
            "truncation",
            "user",
        ]
    ),
    "messages": frozenset(
        [
            "max_tokens",
            "messages",
            "model",
            "system",
            "stream",
            "temperature",
            "thinking",
            "tools",
            "tool_choice",
            "top_p",
            "top_k",
            "stop_sequences",
            "metadata",
        ]
    ),
    "images": frozenset(
        [
            "prompt",
            "model",
            "n",
            "size",
            "quality",
            "stream",
            "partial_images",
            "output_format",
            "background",
            "output_compression",
            "moderation",
            "response_format",
            "style",
            "user",
        ]
    ),
    "speech": frozenset(
        ["input", "model", "voice", "instructions", "response_format", "speed", "stream_format"]
    ),
    "transcription": frozenset(
        [
            "model",
            "language",
            "prompt",
            "response_format",
            "stream",
            "temperature",
            "include",
            "timestamp_granularities",
        ]
    ),
}


class ExportError(ValueError):
    """The request cannot be exported (no URL, an unknown route...)."""


def _env_var(request: Mapping[str, Any]) -> str:
    provider = provider_for_url(str(request.get("url", "")))
    return provider.env_var or "PLAYGROUND_API_KEY"


def _auth_style(headers: Mapping[str, str]) -> str | None:
    names = {n.lower() for n in headers}
    if "x-api-key" in names:
        return "x-api-key"
    if "authorization" in names:
        return "bearer"
    return None


def _extra_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {n: v for n, v in headers.items() if n.lower() not in _SKIP_HEADERS}


def _headers(request: Mapping[str, Any]) -> dict[str, str]:
    raw = request.get("headers") or {}
    if isinstance(raw, list):  # [[name, value], ...]
        return {str(n): str(v) for n, v in raw}
    return {str(n): str(v) for n, v in dict(raw).items()}


def _body(request: Mapping[str, Any]) -> Any:
    body = request.get("body")
    if isinstance(body, str | bytes):
        try:
            return json.loads(body)
        except ValueError:
            return body
    return body


_FILE_VIEW = re.compile(r"^@(?P<name>.+?)(?: \(\d+ bytes\))?$")


def _form(body: Any) -> tuple[dict[str, Any], str]:
    """Multipart fields (typed back from their form strings) and the uploaded file's name."""
    fields = dict(body) if isinstance(body, dict) else {}
    filename = "audio.wav"
    file_value = fields.pop("file", None)
    if isinstance(file_value, str):
        match = _FILE_VIEW.match(file_value)
        if match:
            filename = match.group("name")
    typed: dict[str, Any] = {}
    for key, value in fields.items():
        if value in ("true", "false"):
            typed[key] = value == "true"
        elif key == "temperature" and isinstance(value, str):
            try:
                typed[key] = float(value)
            except ValueError:
                typed[key] = value
        else:
            typed[key] = value
    return typed, filename


def _split_url(url: str, route: str) -> str:
    """The base URL the SDK wants: the request URL without the route's path."""
    for path in (route_spec(route).path, "/images"):
        if url.endswith(path):
            return url[: -len(path)]
    return url.rsplit("/", 1)[0]


def _check(request: Mapping[str, Any], route: str) -> None:
    if not request.get("url"):
        raise ExportError("the run has no request URL to export")
    route_spec(route)  # ValueError for an unknown route


# -- curl -------------------------------------------------------------------------------------


def to_curl(request: Mapping[str, Any], route: str) -> str:
    """A curl command line; -N so events print as they arrive."""
    _check(request, route)
    headers = _headers(request)
    env = _env_var(request)
    method = str(request.get("method") or "POST").upper()
    parts = [f"curl -N -X {method} {shlex.quote(str(request['url']))}"]
    style = _auth_style(headers)
    if style == "x-api-key":
        parts.append(f'-H "x-api-key: ${env}"')
        parts.append("-H 'anthropic-version: 2023-06-01'")
    elif style == "bearer":
        parts.append(f'-H "Authorization: Bearer ${env}"')
    for name, value in _extra_headers(headers).items():
        parts.append(f"-H {shlex.quote(f'{name}: {value}')}")
    body = _body(request)
    if route_spec(route).multipart:
        fields, filename = _form(body)
        parts.append(f"-F {shlex.quote('file=@' + filename)}")
        for key, value in fields.items():
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            parts.append(f"-F {shlex.quote(f'{key}={text}')}")
    elif body is not None:
        parts.append("-H 'Content-Type: application/json'")
        text = json.dumps(body, indent=2, ensure_ascii=False) if not isinstance(body, str) else body
        parts.append(f"-d {shlex.quote(text)}")
    return " \\\n  ".join(parts) + "\n"


# -- Python -----------------------------------------------------------------------------------


def _py(value: Any, indent: int) -> str:
    text = pprint.pformat(value, indent=1, width=max(40, 96 - indent), sort_dicts=False)
    return text.replace("\n", "\n" + " " * indent)


def _kwargs(route: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    known = _SDK_PARAMS.get(route, frozenset())
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


def _api_key_expr(request: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    env = _env_var(request)
    if _auth_style(headers) is None:
        # The run sent no key (the built-in simulator): the SDK still wants a non-empty one.
        return f'os.environ.get("{env}", "not-needed")'
    return f'os.environ["{env}"]'


def to_python(request: Mapping[str, Any], route: str) -> str:
    """A script with the openai SDK (anthropic's for messages) that streams and prints the run."""
    _check(request, route)
    headers = _headers(request)
    url = str(request["url"])
    extra = _extra_headers(headers)
    key = _api_key_expr(request, headers)
    body = _body(request)
    body = dict(body) if isinstance(body, dict) else {}
    stream = bool(body.get("stream"))
    if route == "messages":
        base = (
            url[: -len("/v1/messages")] if url.endswith("/v1/messages") else _split_url(url, route)
        )
        head = (
            "import os\n\nimport anthropic\n\n"
            f"client = anthropic.Anthropic(base_url={base!r}, api_key={key})\n\n"
        )
    elif route == "music":
        return _python_music(url, body, headers, extra)
    else:
        base = _split_url(url, route)
        imports = {
            "images": "import base64\nimport os\n",
            "speech": "import base64\nimport json\nimport os\n",
        }.get(route, "import os\n")
        head = (
            f"{imports}\nfrom openai import OpenAI\n\n"
            f"client = OpenAI(base_url={base!r}, api_key={key})\n\n"
        )
    return head + _PY_BODIES[route](body, extra, stream)


def _py_chat(body: dict[str, Any], extra: dict[str, str], stream: bool) -> str:
    call = f"client.chat.completions.create(\n{_kwargs('chat', body, extra)}\n)\n"
    if not stream:
        return f"response = {call}print(response.model_dump_json(indent=2))\n"
    return (
        f"stream = {call}"
        "for chunk in stream:\n"
        "    for choice in chunk.choices:\n"
        "        if choice.delta.content:\n"
        '            print(choice.delta.content, end="", flush=True)\n'
        "        for call in choice.delta.tool_calls or []:\n"
        "            if call.function and call.function.arguments:\n"
        '                print(call.function.arguments, end="", flush=True)\n'
        "    if chunk.usage:\n"
        '        print(f"\\n{chunk.usage.prompt_tokens} in, {chunk.usage.completion_tokens} out")\n'
    )


def _py_responses(body: dict[str, Any], extra: dict[str, str], stream: bool) -> str:
    call = f"client.responses.create(\n{_kwargs('responses', body, extra)}\n)\n"
    if not stream:
        return f"response = {call}print(response.output_text)\n"
    return (
        f"stream = {call}"
        "for event in stream:\n"
        '    if event.type in ("response.output_text.delta", '
        '"response.function_call_arguments.delta"):\n'
        '        print(event.delta, end="", flush=True)\n'
        '    elif event.type == "response.completed" and event.response.usage:\n'
        "        usage = event.response.usage\n"
        '        print(f"\\n{usage.input_tokens} in, {usage.output_tokens} out")\n'
    )


def _py_messages(body: dict[str, Any], extra: dict[str, str], stream: bool) -> str:
    call = f"client.messages.create(\n{_kwargs('messages', body, extra)}\n)\n"
    if not stream:
        return f"message = {call}print(message.model_dump_json(indent=2))\n"
    return (
        f"stream = {call}"
        "for event in stream:\n"
        '    if event.type == "content_block_delta":\n'
        '        if event.delta.type == "text_delta":\n'
        '            print(event.delta.text, end="", flush=True)\n'
        '        elif event.delta.type == "input_json_delta":\n'
        '            print(event.delta.partial_json, end="", flush=True)\n'
        '    elif event.type == "message_delta":\n'
        '        print(f"\\nstop_reason: {event.delta.stop_reason}")\n'
    )


def _py_images(body: dict[str, Any], extra: dict[str, str], stream: bool) -> str:
    ext = str(body.get("output_format") or "png")
    call = f"client.images.generate(\n{_kwargs('images', body, extra)}\n)\n"
    if not stream:
        return (
            f"response = {call}"
            "for i, image in enumerate(response.data):\n"
            f'    with open(f"image_{{i}}.{ext}", "wb") as out:\n'
            "        out.write(base64.b64decode(image.b64_json))\n"
            f'    print(f"saved image_{{i}}.{ext}")\n'
        )
    return (
        f"stream = {call}"
        "for event in stream:\n"
        '    if event.type == "image_generation.partial_image":\n'
        f'        name = f"partial_{{event.partial_image_index}}.{ext}"\n'
        '    elif event.type == "image_generation.completed":\n'
        f'        name = "image.{ext}"\n'
        "    else:\n"
        "        continue\n"
        '    with open(name, "wb") as out:\n'
        "        out.write(base64.b64decode(event.b64_json))\n"
        '    print("saved", name)\n'
    )


def _py_speech(body: dict[str, Any], extra: dict[str, str], stream: bool) -> str:
    ext = str(body.get("response_format") or "mp3")
    sse = body.get("stream_format") == "sse"
    head = (
        "with client.audio.speech.with_streaming_response.create(\n"
        f"{_kwargs('speech', body, extra)}\n"
        f') as response, open("speech.{ext}", "wb") as out:\n'
    )
    if sse:
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
    return head + loop + f'print("saved speech.{ext}")\n'


def _py_transcription(body: dict[str, Any], extra: dict[str, str], stream: bool) -> str:
    fields, filename = _form(body)
    stream = bool(fields.get("stream"))
    kwargs = _kwargs("transcription", fields, extra)
    indented = kwargs.replace("\n", "\n    ")
    call = f"client.audio.transcriptions.create(\n        file=audio,\n    {indented}\n    )\n"
    if not stream:
        return (
            f"AUDIO_FILE = {filename!r}\n\n"
            'with open(AUDIO_FILE, "rb") as audio:\n'
            f"    transcript = {call}"
            "print(transcript)\n"
        )
    return (
        f"AUDIO_FILE = {filename!r}\n\n"
        'with open(AUDIO_FILE, "rb") as audio:\n'
        f"    stream = {call}"
        "    for event in stream:\n"
        '        if event.type == "transcript.text.delta":\n'
        '            print(event.delta, end="", flush=True)\n'
        '        elif event.type == "transcript.text.done":\n'
        "            print()\n"
    )


def _python_music(
    url: str, body: dict[str, Any], headers: dict[str, str], extra: dict[str, str]
) -> str:
    env = provider_for_url(url).env_var or "PLAYGROUND_API_KEY"
    auth = ""
    style = _auth_style(headers)
    if style == "bearer":
        auth = f'    "Authorization": f"Bearer {{os.environ[{env!r}]}}",\n'
    elif style == "x-api-key":
        auth = f'    "x-api-key": os.environ[{env!r}],\n'
    extra_lines = "".join(f"    {n!r}: {v!r},\n" for n, v in extra.items())
    return (
        "import os\n\nimport httpx\n\n"
        "# Music is an async job API; no SDK covers it, so this posts the request with httpx.\n"
        f"headers = {{\n{auth}{extra_lines}}}\n"
        f"body = {_py(body, 7)}\n"
        f"response = httpx.post({url!r}, headers=headers, json=body, timeout=None)\n"
        "print(response.status_code)\n"
        "print(response.text)\n"
    )


_PY_BODIES = {
    "chat": _py_chat,
    "responses": _py_responses,
    "messages": _py_messages,
    "images": _py_images,
    "speech": _py_speech,
    "transcription": _py_transcription,
}


# -- TypeScript -------------------------------------------------------------------------------


def _ts(value: Any, indent: int = 0) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + " " * indent)


def to_typescript(request: Mapping[str, Any], route: str) -> str:
    """A Node script with the openai npm package (@anthropic-ai/sdk for messages)."""
    _check(request, route)
    headers = _headers(request)
    url = str(request["url"])
    env = _env_var(request)
    extra = _extra_headers(headers)
    body = _body(request)
    body = dict(body) if isinstance(body, dict) else {}
    stream = bool(body.get("stream"))
    key = f"process.env.{env}" if _auth_style(headers) else f'process.env.{env} ?? "not-needed"'
    options = f", {{ headers: {_ts(extra)} }}" if extra else ""
    if route == "music":
        auth = ""
        if _auth_style(headers) == "bearer":
            auth = f"    Authorization: `Bearer ${{process.env.{env}}}`,\n"
        elif _auth_style(headers) == "x-api-key":
            auth = f'    "x-api-key": process.env.{env} ?? "",\n'
        extras = "".join(f"    {json.dumps(n)}: {json.dumps(v)},\n" for n, v in extra.items())
        return (
            "// Music is an async job API; no SDK covers it, so this posts it with fetch.\n"
            f"const response = await fetch({json.dumps(url)}, {{\n"
            '  method: "POST",\n'
            f'  headers: {{\n    "Content-Type": "application/json",\n{auth}{extras}  }},\n'
            f"  body: JSON.stringify({_ts(body, 2)}),\n"
            "});\n"
            "console.log(response.status, await response.text());\n"
        )
    if route == "messages":
        base = (
            url[: -len("/v1/messages")] if url.endswith("/v1/messages") else _split_url(url, route)
        )
        head = (
            'import Anthropic from "@anthropic-ai/sdk";\n\n'
            f"const client = new Anthropic({{ baseURL: {json.dumps(base)}, apiKey: {key} }});\n\n"
        )
        call = f"await client.messages.create({_ts(body)}{options})"
        if not stream:
            return (
                head + f"const message = {call};\nconsole.log(JSON.stringify(message, null, 2));\n"
            )
        return head + (
            f"const stream = {call};\n"
            "for await (const event of stream) {\n"
            '  if (event.type === "content_block_delta") {\n'
            '    if (event.delta.type === "text_delta") process.stdout.write(event.delta.text);\n'
            '    else if (event.delta.type === "input_json_delta") '
            "process.stdout.write(event.delta.partial_json);\n"
            '  } else if (event.type === "message_delta") {\n'
            "    console.log(`\\nstop_reason: ${event.delta.stop_reason}`);\n"
            "  }\n"
            "}\n"
        )
    base = _split_url(url, route)
    imports = (
        'import fs from "node:fs";\n' if route in ("images", "speech", "transcription") else ""
    )
    head = (
        f'{imports}import OpenAI from "openai";\n\n'
        f"const client = new OpenAI({{ baseURL: {json.dumps(base)}, apiKey: {key} }});\n\n"
    )
    return head + _ts_body(route, body, options, stream)


def _ts_body(route: str, body: dict[str, Any], options: str, stream: bool) -> str:
    if route == "chat":
        call = f"await client.chat.completions.create({_ts(body)}{options})"
        if not stream:
            return (
                f"const completion = {call};\nconsole.log(JSON.stringify(completion, null, 2));\n"
            )
        return (
            f"const stream = {call};\n"
            "for await (const chunk of stream) {\n"
            "  for (const choice of chunk.choices) {\n"
            '    process.stdout.write(choice.delta?.content ?? "");\n'
            "    for (const call of choice.delta?.tool_calls ?? []) "
            'process.stdout.write(call.function?.arguments ?? "");\n'
            "  }\n"
            "  if (chunk.usage) console.log(`\\n${chunk.usage.prompt_tokens} in, "
            "${chunk.usage.completion_tokens} out`);\n"
            "}\n"
        )
    if route == "responses":
        call = f"await client.responses.create({_ts(body)}{options})"
        if not stream:
            return f"const response = {call};\nconsole.log(response.output_text);\n"
        return (
            f"const stream = {call};\n"
            "for await (const event of stream) {\n"
            '  if (event.type === "response.output_text.delta" || '
            'event.type === "response.function_call_arguments.delta") {\n'
            "    process.stdout.write(event.delta);\n"
            '  } else if (event.type === "response.completed") {\n'
            "    console.log(`\\n${event.response.usage?.input_tokens} in, "
            "${event.response.usage?.output_tokens} out`);\n"
            "  }\n"
            "}\n"
        )
    if route == "images":
        ext = str(body.get("output_format") or "png")
        call = f"await client.images.generate({_ts(body)}{options})"
        if not stream:
            return (
                f"const response = {call};\n"
                "response.data?.forEach((image, i) =>\n"
                f"  fs.writeFileSync(`image_${{i}}.{ext}`, "
                'Buffer.from(image.b64_json ?? "", "base64")),\n);\n'
            )
        return (
            f"const stream = {call};\n"
            "for await (const event of stream) {\n"
            '  if (event.type === "image_generation.partial_image") {\n'
            f"    fs.writeFileSync(`partial_${{event.partial_image_index}}.{ext}`, "
            'Buffer.from(event.b64_json, "base64"));\n'
            '  } else if (event.type === "image_generation.completed") {\n'
            f'    fs.writeFileSync("image.{ext}", Buffer.from(event.b64_json, "base64"));\n'
            "  }\n"
            "}\n"
        )
    if route == "speech":
        ext = str(body.get("response_format") or "mp3")
        call = f"await client.audio.speech.create({_ts(body)}{options})"
        if body.get("stream_format") != "sse":
            return (
                f"const response = {call};\n"
                f'fs.writeFileSync("speech.{ext}", Buffer.from(await response.arrayBuffer()));\n'
            )
        return (
            f"const response = {call};\n"
            "// stream_format sse: speech.audio.delta events carry base64 audio.\n"
            "const chunks: Buffer[] = [];\n"
            'let pending = "";\n'
            "for await (const piece of response.body as any) {\n"
            "  pending += Buffer.from(piece).toString();\n"
            '  const lines = pending.split("\\n");\n'
            '  pending = lines.pop() ?? "";\n'
            "  for (const line of lines) {\n"
            '    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;\n'
            "    const event = JSON.parse(line.slice(6));\n"
            '    if (event.type === "speech.audio.delta")\n'
            '      chunks.push(Buffer.from(event.audio, "base64"));\n'
            "  }\n"
            "}\n"
            f'fs.writeFileSync("speech.{ext}", Buffer.concat(chunks));\n'
        )
    # transcription
    fields, filename = _form(body)
    payload = _ts({"file": "__FILE__", **fields}).replace(
        '"file": "__FILE__"', f"file: fs.createReadStream({json.dumps(filename)})"
    )
    call = f"await client.audio.transcriptions.create({payload}{options})"
    if not fields.get("stream"):
        return f"const transcript = {call};\nconsole.log(transcript);\n"
    return (
        f"const stream = {call};\n"
        "for await (const event of stream) {\n"
        '  if (event.type === "transcript.text.delta") process.stdout.write(event.delta);\n'
        '  else if (event.type === "transcript.text.done") console.log();\n'
        "}\n"
    )


def export_request(request: Mapping[str, Any], route: str, fmt: str) -> str:
    """The request of a run in ``fmt`` (curl, python or typescript)."""
    builders = {"curl": to_curl, "python": to_python, "typescript": to_typescript}
    if fmt not in builders:
        raise ExportError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return builders[fmt](request, route)
