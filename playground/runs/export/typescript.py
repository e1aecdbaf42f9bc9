"""A run's request as a Node ES module (openai npm package, @anthropic-ai/sdk for messages).

Saved as `<route>.mjs` it runs with `node` after `npm install openai`: an ES module, because
top-level `await` fails under Node's default CommonJS. Plain JavaScript (no type annotations, so
no compile step); the key and base URL come from the environment; reasoning, thinking, text and
tool calls print as they stream; an uploaded file is the command-line argument.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from typing import Any

from playground.protocol.requests import route_spec
from playground.runs.export.common import (
    BASE_URL_VAR,
    Run,
    comment_text,
    file_extension,
    json_text,
    read_run,
)

__all__ = ["to_typescript"]


def _js(value: Any, indent: int = 0) -> str:
    """``value`` as a JavaScript literal: the one way anything from a capture enters the module.

    JSON is JavaScript's literal syntax (quotes, backslashes and controls escaped; ``json_text``
    escapes U+2028 and lone surrogates too); a string literal in double quotes gives backticks
    and ``${`` no meaning. One key differs: ``"__proto__":`` in an object literal sets the
    object's prototype instead of a property, so it is written as a computed key."""
    text = _literal(value, "  ")
    return text.replace("\n", "\n" + " " * indent)


def _literal(value: Any, step: str, pad: str = "") -> str:
    if isinstance(value, dict) and value:
        inner = pad + step
        items = ",\n".join(
            f"{inner}{_key(str(key))}: {_literal(item, step, inner)}" for key, item in value.items()
        )
        return "{\n" + items + "\n" + pad + "}"
    if isinstance(value, list) and value:
        inner = pad + step
        items = ",\n".join(inner + _literal(item, step, inner) for item in value)
        return "[\n" + items + "\n" + pad + "]"
    return json_text(value, None)


def _key(name: str) -> str:
    return '["__proto__"]' if name == "__proto__" else json_text(name, None)


def _wrap(line: str) -> list[str]:
    """A header comment line in lines that fit 96 columns (commands are short and stay whole)."""
    return textwrap.wrap(line, 96, break_on_hyphens=False, break_long_words=False) or [""]


def _header(run: Run, package: str) -> str:
    name = f"{run.route}.mjs"
    args = " AUDIO_FILE" if run.route == "transcription" else ""
    lines = [
        f"{route_spec(run.route).title} request exported by playground; it runs as written.",
        f"An ES module (top-level await): save it as {name} (the .mjs name matters), then",
        f"    npm install {package}" if package else "    (Node 18 or newer: no package needed)",
        f"    node {name}{args}",
        *run.notes(),
    ]
    return "".join(f"// {part}\n" for line in lines for part in _wrap(comment_text(line))) + "\n"


def _key_expr(run: Run) -> str:
    if run.auth is None:  # the run sent no key: the SDK still wants a non-empty one
        return f'process.env.{run.env_var} || "not-needed"'
    return f"process.env.{run.env_var}"


_BASE = f"const BASE_URL = process.env.{BASE_URL_VAR} || {{base}};\n"

# Streamed text under a heading each time its kind changes (reasoning, answer, a tool call).
_SHOW = """
let shown = null;
// Print streamed text as it comes, under a heading each time the kind of text changes.
function show(kind, text) {
  if (kind !== shown) {
    process.stdout.write((shown ? "\\n" : "") + `[${kind}]\\n`);
    shown = kind;
  }
  process.stdout.write(text);
}
// A line of its own after the streamed text (finish reason, usage).
function say(line) {
  if (shown) process.stdout.write("\\n");
  shown = null;
  console.log(line);
}

"""


def to_typescript(request: Mapping[str, Any], route: str) -> str:
    """A Node ES module with the openai npm package (@anthropic-ai/sdk for messages)."""
    run = read_run(request, route)
    base = _BASE.format(base=_js(run.base_url))
    if route == "music":
        return _header(run, "") + _music(run, base)
    if route == "messages":
        head = (
            'import Anthropic from "@anthropic-ai/sdk";\n\n'
            + base
            + "// The Anthropic SDK adds /v1 itself.\n"
            "const client = new Anthropic({\n"
            '  baseURL: BASE_URL.replace(/\\/v1\\/?$/, ""),\n'
            f"  apiKey: {_key_expr(run)},\n"
            "});\n"
        )
        return _header(run, "@anthropic-ai/sdk") + head + _messages(run)
    files = route in ("images", "speech", "transcription")
    imports = 'import fs from "node:fs";\n' if files else ""
    head = (
        f'{imports}import OpenAI from "openai";\n\n'
        + (_argv_check(run) if route == "transcription" else "")
        + base
        + f"const client = new OpenAI({{ baseURL: BASE_URL, apiKey: {_key_expr(run)} }});\n"
    )
    return _header(run, "openai") + head + _BODIES[route](run)


def _options(run: Run) -> str:
    return f", {{ headers: {_js(run.headers)} }}" if run.headers else ""


def _chat(run: Run) -> str:
    call = f"await client.chat.completions.create({_js(run.fields)}{_options(run)})"
    if not run.stream:
        return f"\nconst completion = {call};\nconsole.log(JSON.stringify(completion, null, 2));\n"
    return (
        _SHOW + f"const stream = {call};\n" + "const toolNames = new Map();\n"
        "const finished = new Set();\n"
        "for await (const chunk of stream) {\n"
        "  for (const choice of chunk.choices) {\n"
        "    const delta = choice.delta ?? {};\n"
        "    // Reasoning is not in the SDK's types: gateways stream it as delta.reasoning (the\n"
        "    // seed pages) or delta.reasoning_content.\n"
        "    const reasoning = delta.reasoning ?? delta.reasoning_content;\n"
        '    if (reasoning) show("reasoning", reasoning);\n'
        '    if (delta.content) show("answer", delta.content);\n'
        "    for (const call of delta.tool_calls ?? []) {\n"
        "      const key = `${choice.index}/${call.index}`;\n"
        "      if (call.function?.name) {\n"
        "        toolNames.set(key, call.function.name);\n"
        '        show(`tool call ${call.function.name}`, "");\n'
        "      }\n"
        "      if (call.function?.arguments) {\n"
        "        show(`tool call ${toolNames.get(key) ?? call.index}`, call.function.arguments);\n"
        "      }\n"
        "    }\n"
        "    if (choice.finish_reason && !finished.has(choice.index)) {\n"
        "      finished.add(choice.index);\n"
        "      say(`finish_reason: ${choice.finish_reason}`);\n"
        "    }\n"
        "  }\n"
        "  if (chunk.usage) {\n"
        "    say(`usage: ${chunk.usage.prompt_tokens} in, ${chunk.usage.completion_tokens} out`);\n"
        "  }\n"
        "}\n"
    )


def _responses(run: Run) -> str:
    call = f"await client.responses.create({_js(run.fields)}{_options(run)})"
    if not run.stream:
        return f"\nconst response = {call};\nconsole.log(response.output_text);\n"
    return (
        _SHOW + f"const stream = {call};\n" + "const toolNames = new Map();\n"
        "for await (const event of stream) {\n"
        "  switch (event.type) {\n"
        '    case "response.reasoning_text.delta":\n'
        '    case "response.reasoning_summary_text.delta":\n'
        '      show("reasoning", event.delta);\n'
        "      break;\n"
        '    case "response.output_text.delta":\n'
        '      show("answer", event.delta);\n'
        "      break;\n"
        '    case "response.output_item.added":\n'
        '      if (event.item.type === "function_call") {\n'
        "        toolNames.set(event.item.id, event.item.name);\n"
        '        show(`tool call ${event.item.name}`, "");\n'
        "      }\n"
        "      break;\n"
        '    case "response.function_call_arguments.delta":\n'
        "      show(`tool call ${toolNames.get(event.item_id) ?? event.item_id}`, event.delta);\n"
        "      break;\n"
        '    case "response.completed":\n'
        '    case "response.incomplete":\n'
        '    case "response.failed": {\n'
        "      say(`status: ${event.response.status}`);\n"
        "      const usage = event.response.usage;\n"
        "      if (usage) say(`usage: ${usage.input_tokens} in, ${usage.output_tokens} out`);\n"
        "      break;\n"
        "    }\n"
        '    case "error":\n'
        "      say(`error: ${event.message}`);\n"
        "      break;\n"
        "  }\n"
        "}\n"
    )


def _messages(run: Run) -> str:
    call = f"await client.messages.create({_js(run.fields)}{_options(run)})"
    if not run.stream:
        return f"\nconst message = {call};\nconsole.log(JSON.stringify(message, null, 2));\n"
    return (
        _SHOW + f"const stream = {call};\n" + "const blocks = new Map();\n"
        "for await (const event of stream) {\n"
        '  if (event.type === "content_block_start" && event.content_block.type === "tool_use") {\n'
        "    blocks.set(event.index, `tool call ${event.content_block.name}`);\n"
        '    show(blocks.get(event.index), "");\n'
        '  } else if (event.type === "content_block_delta") {\n'
        '    if (event.delta.type === "thinking_delta") show("thinking", event.delta.thinking);\n'
        '    else if (event.delta.type === "text_delta") show("answer", event.delta.text);\n'
        '    else if (event.delta.type === "input_json_delta") {\n'
        '      show(blocks.get(event.index) ?? "tool call", event.delta.partial_json);\n'
        "    }\n"
        '  } else if (event.type === "message_delta") {\n'
        "    say(`stop_reason: ${event.delta.stop_reason}`);\n"
        "    say(`usage: ${event.usage.output_tokens} out`);\n"
        "  }\n"
        "}\n"
    )


def _images(run: Run) -> str:
    ext = _js("." + file_extension(run.fields.get("output_format"), "png"))
    call = f"await client.images.generate({_js(run.fields)}{_options(run)})"
    if not run.stream:
        return (
            f"\nconst response = {call};\n"
            "(response.data ?? []).forEach((image, i) => {\n"
            f"  const name = `image_${{i}}` + {ext};\n"
            '  fs.writeFileSync(name, Buffer.from(image.b64_json ?? "", "base64"));\n'
            '  console.log("saved", name);\n'
            "});\n"
        )
    return (
        f"\nconst stream = {call};\n"
        "for await (const event of stream) {\n"
        "  let name;\n"
        '  if (event.type === "image_generation.partial_image") {\n'
        f"    name = `partial_${{event.partial_image_index}}` + {ext};\n"
        '  } else if (event.type === "image_generation.completed") {\n'
        f'    name = "image" + {ext};\n'
        "  } else continue;\n"
        '  fs.writeFileSync(name, Buffer.from(event.b64_json, "base64"));\n'
        '  console.log("saved", name);\n'
        "}\n"
    )


def _speech(run: Run) -> str:
    name = _js("speech." + file_extension(run.fields.get("response_format"), "mp3"))
    call = f"await client.audio.speech.create({_js(run.fields)}{_options(run)})"
    if run.fields.get("stream_format") != "sse":
        return (
            f"\nconst response = {call};\n"
            f"fs.writeFileSync({name}, Buffer.from(await response.arrayBuffer()));\n"
            f'console.log("saved", {name});\n'
        )
    return (
        f"\nconst response = {call};\n"
        '// stream_format sse (seed "Other streams"): speech.audio.delta events carry base64\n'
        "// audio.\n"
        "const chunks = [];\n"
        "const decoder = new TextDecoder();\n"
        'let pending = "";\n'
        "for await (const piece of response.body) {\n"
        "  pending += decoder.decode(piece, { stream: true });\n"
        '  const lines = pending.split("\\n");\n'
        "  pending = lines.pop();\n"
        "  for (const raw of lines) {\n"
        '    const line = raw.replace(/\\r$/, "");\n'
        '    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;\n'
        "    const event = JSON.parse(line.slice(6));\n"
        '    if (event.type === "speech.audio.delta") {\n'
        '      chunks.push(Buffer.from(event.audio, "base64"));\n'
        "    }\n"
        '    else if (event.type === "speech.audio.done") console.log("usage:", event.usage);\n'
        "  }\n"
        "}\n"
        f"fs.writeFileSync({name}, Buffer.concat(chunks));\n"
        f'console.log("saved", {name});\n'
    )


def _argv_check(run: Run) -> str:
    """The uploaded file is the script's argument (the run's own file is not where it runs)."""
    return (
        "const audioFile = process.argv[2];\n"
        "if (!audioFile) {\n"
        f'  console.error("usage: node {run.route}.mjs AUDIO_FILE  (the run sent " + '
        f'{_js(run.filename)} + ")");\n'
        "  process.exit(2);\n"
        "}\n\n"
    )


def _transcription(run: Run) -> str:
    fields = _js(run.fields)
    opened = "file: fs.createReadStream(audioFile)"
    # The file first, then the run's fields: built around the literal, never by replacing in it.
    payload = "{ " + opened + " }" if fields == "{}" else "{\n  " + opened + "," + fields[1:]
    call = f"await client.audio.transcriptions.create({payload}{_options(run)})"
    if not run.stream:
        return f"\nconst transcript = {call};\nconsole.log(transcript);\n"
    return (
        f"\nconst stream = {call};\n"
        "for await (const event of stream) {\n"
        '  if (event.type === "transcript.text.delta") process.stdout.write(event.delta);\n'
        '  else if (event.type === "transcript.text.done") console.log();\n'
        "}\n"
    )


def _music(run: Run, base: str) -> str:
    auth = ""
    if run.auth == "bearer":
        auth = f"  Authorization: `Bearer ${{process.env.{run.env_var}}}`,\n"
    elif run.auth == "x-api-key":
        auth = f'  "x-api-key": process.env.{run.env_var} ?? "",\n'
    extras = "".join(f"  {_key(n)}: {_js(v)},\n" for n, v in run.headers.items())
    path = _js(run.path)
    return (
        'import fs from "node:fs";\n\n'
        + base
        + "// Music is an async job API that no SDK covers: create the job, follow it, download.\n"
        f"const headers = {{\n{auth}{extras}}};\n"
        f"const response = await fetch(BASE_URL + {path}, {{\n"
        '  method: "POST",\n'
        '  headers: { ...headers, "Content-Type": "application/json" },\n'
        f"  body: JSON.stringify({_js(run.fields, 2)}),\n"
        "});\n"
        "if (!response.ok) {\n"
        "  console.error(`HTTP ${response.status}: ${await response.text()}`);\n"
        "  process.exit(1);\n"
        "}\n"
        "let job;\n"
        'if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {\n'
        '  for (const line of (await response.text()).split("\\n")) {\n'
        '    if (!line.startsWith("data: ") || line.startsWith("data: [DONE]")) continue;\n'
        "    const event = JSON.parse(line.slice(6));\n"
        '    console.log(event.type, event.progress ?? "");\n'
        "    job = event.job ?? job;\n"
        "  }\n"
        "} else job = await response.json();\n"
        'console.log("job", job.id, job.status);\n'
        'while (job.status !== "completed" && job.status !== "failed") {\n'
        "  await new Promise((resolve) => setTimeout(resolve, 1000));\n"
        f"  job = await (await fetch(BASE_URL + {path} + `/${{job.id}}`, {{ headers }})).json();\n"
        '  console.log("job", job.id, job.status, job.progress ?? "");\n'
        "}\n"
        'if (job.status !== "completed") {\n'
        "  console.error(`the job ended ${job.status}`);\n"
        "  process.exit(1);\n"
        "}\n"
        "const audio = await fetch(job.audio_url, { headers });\n"
        'fs.writeFileSync("music.wav", Buffer.from(await audio.arrayBuffer()));\n'
        'console.log("saved music.wav");\n'
    )


_BODIES: dict[str, Callable[[Run], str]] = {
    "chat": _chat,
    "responses": _responses,
    "images": _images,
    "speech": _speech,
    "transcription": _transcription,
}
