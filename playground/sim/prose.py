"""Deterministic prose from a prompt: Markdown answers, thinking, transcripts, and tokens."""

from __future__ import annotations

import random
import re

from playground.sim.context import seed_of
from playground.sim.schema_values import places_in

_STOP = {
    "the",
    "a",
    "an",
    "and",
    "or",
    "of",
    "to",
    "in",
    "on",
    "for",
    "with",
    "is",
    "are",
    "be",
    "me",
    "my",
    "you",
    "your",
    "it",
    "its",
    "this",
    "that",
    "what",
    "how",
    "why",
    "can",
    "please",
    "about",
    "tell",
    "give",
    "write",
    "explain",
    "from",
    "into",
    "at",
    "as",
    "by",
    "do",
    "does",
    "i",
    "we",
    "us",
    "some",
    "any",
    "one",
    "two",
    "three",
    "five",
    "count",
}
_OPENERS = [
    "Here is a short take on {topic}.",
    "Good question: {topic} is worth a closer look.",
    "Let's look at {topic} step by step.",
    "{Topic} comes up often, so here is the gist.",
]
_SENTENCES = [
    "The key idea is that {kw} shapes everything that follows.",
    "In practice, {kw} works best when you keep the moving parts small.",
    "Most people start with {kw} and only later notice how it interacts with {kw2}.",
    "A useful rule of thumb: measure {kw} before you try to improve it.",
    "When {kw} and {kw2} disagree, the simpler explanation usually wins.",
    "It helps to write down what {kw} should do before deciding how.",
    "Small, steady changes to {kw} tend to beat one large rewrite.",
    "There is no single right answer here, but {kw} is a good place to begin.",
    "Think of {kw} as a stream: it arrives piece by piece, and each piece adds a little.",
    "If {kw2} feels slow, look at {kw} first; that is where the time usually goes.",
]
_BULLETS = [
    "**{Kw}**: start small and check the result early.",
    "**{Kw}**: keep notes, because details fade quickly.",
    "**{Kw}**: compare two options side by side.",
    "**{Kw}**: ask what would make it simpler.",
    "**{Kw}**: watch for the edge cases first.",
]
_CODE = [
    "You can try it with `{code}` and read the output line by line.",
    "A quick check such as `{code}` shows the idea in one line.",
    "For a concrete start, run `{code}` and see what changes.",
]
_CLOSERS = [
    "In short, {kw} rewards patience and a clear plan.",
    "That should be enough to get going with {kw} and {kw2}.",
    "Start there, and {kw} will make more sense with every step.",
]
_THINK = [
    "The user is asking about {topic}.",
    "Let me think about what matters most for {kw}.",
    "First, {kw} needs a short definition.",
    "Then a few practical points, maybe as a list.",
    "I should mention {kw2} too, since it is related.",
    "A small code example would make this concrete.",
    "Keep the answer short and friendly.",
]
_TOKEN = re.compile(r"\s*(?:[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9])")


_ASKING = {
    "explain",
    "describe",
    "write",
    "show",
    "list",
    "compare",
    "summarize",
    "summarise",
    "define",
    "count",
    "help",
    "make",
    "create",
    "generate",
    "could",
    "would",
    "should",
    "today",
    "tomorrow",
    "like",
    "there",
}


def keywords(prompt: str, n: int = 3) -> list[str]:
    """The prompt's longest content words: acronyms and proper names as written, the rest lower."""
    words = re.findall(r"[A-Za-z][A-Za-z'-]{2,}", prompt)
    picked: list[str] = []
    for word in sorted(words, key=lambda w: (-len(w), words.index(w))):
        low = word.lower()
        # Adverbs and instructions ("briefly", "explain") are how a prompt asks, not its topic.
        if low in _STOP or low in _ASKING or (low.endswith("ly") and len(low) > 4):
            continue
        proper = word[0].isupper() and word in places_in(prompt)
        kept = word if proper or (word.isupper() and len(word) <= 6) else low
        if kept not in picked:
            picked.append(kept)
        if len(picked) == n:
            break
    for filler in ("streaming", "latency", "design"):
        if len(picked) >= n:
            break
        if filler not in picked:
            picked.append(filler)
    return picked


def topic_of(prompt: str) -> str:
    words = prompt.strip().strip("?.!").split()
    if not words:
        return "this question"
    topic = " ".join(words[:8])
    return f'"{topic}…"' if len(words) > 8 else f'"{topic}"'


class _Writer:
    """Fills templates from one seeded random generator."""

    def __init__(self, prompt: str, salt: str) -> None:
        self.rng = random.Random(seed_of(salt, prompt))
        self.kws = keywords(prompt)
        self.topic = topic_of(prompt)

    def fill(self, template: str, kw: str | None = None) -> str:
        first, kw2 = self.rng.sample(self.kws, 2)
        kw = kw or first
        if kw2 == kw:
            kw2 = first
        code = f"{self.kws[0].replace(chr(39), '')}.run(limit={self.rng.randint(2, 64)})"
        return template.format(
            topic=self.topic,
            Topic=self.topic[:1].upper() + self.topic[1:],
            kw=kw,
            kw2=kw2,
            Kw=kw[:1].upper() + kw[1:],
            code=code,
        )

    def sentences(self, pool: list[str], n: int) -> str:
        return " ".join(self.fill(t) for t in self.rng.sample(pool, min(n, len(pool))))


def answer(prompt: str, variant: int = 0) -> str:
    """A Markdown answer of ~60-150 words that mentions the prompt: a heading, a list, `code`;
    with a fenced block in the language asked for when the prompt asks for code, and a Markdown
    table when it asks for a table (what a real model answers such prompts with)."""
    w = _Writer(prompt, f"answer{variant}" if variant else "answer")
    title = " & ".join(k[:1].upper() + k[1:] for k in w.kws[:2])
    picks = w.rng.sample(_BULLETS, 3)
    bullets = "\n".join("- " + w.fill(t, kw) for t, kw in zip(picks, w.kws))
    opening = f"{w.fill(w.rng.choice(_OPENERS))} {w.sentences(_SENTENCES, 2)}"
    closing = f"{w.fill(w.rng.choice(_CODE))} {w.fill(w.rng.choice(_CLOSERS))}"
    language = code_language(prompt)
    if language is not None:
        named = [k for k in w.kws if not _CODE_WORDS.search(k) and k.lower() not in _LANGUAGES]
        opening += "\n\n" + code_block(language, named[0] if named else "items")
    if asks_for_table(prompt):
        bullets += "\n\n" + table(w.kws)
    return f"## {title}\n\n{opening}\n\n{bullets}\n\n{closing}"


_LANGUAGES = {
    "python": "python",
    "py": "python",
    "javascript": "javascript",
    "js": "javascript",
    "node": "javascript",
    "typescript": "typescript",
    "ts": "typescript",
    "rust": "rust",
    "go": "go",
    "golang": "go",
    "bash": "bash",
    "shell": "bash",
    "sql": "sql",
}
_CODE_WORDS = re.compile(
    r"\b(?:function|code|script|snippet|program|class|method|query|implement\w*|regex)\b", re.I
)
_TABLE_WORDS = re.compile(r"\b(?:table|tabular|columns?)\b", re.I)
_CODE_TEMPLATES = {
    "python": (
        "def {name}(items: list[int], limit: int = 10) -> list[int]:\n"
        '    """Keep the first `limit` items that are positive."""\n'
        "    kept = [item for item in items if item > 0]\n"
        "    return kept[:limit]\n\n\n"
        "print({name}([3, -1, 4, 1, -5, 9], limit=3))  # [3, 4, 1]"
    ),
    "javascript": (
        "function {camel}(items, limit = 10) {{\n"
        "  // Keep the first `limit` items that are positive.\n"
        "  return items.filter((item) => item > 0).slice(0, limit);\n"
        "}}\n\n"
        "console.log({camel}([3, -1, 4, 1, -5, 9], 3)); // [3, 4, 1]"
    ),
    "typescript": (
        "export function {camel}(items: number[], limit = 10): number[] {{\n"
        "  // Keep the first `limit` items that are positive.\n"
        "  return items.filter((item) => item > 0).slice(0, limit);\n"
        "}}"
    ),
    "rust": (
        "fn {name}(items: &[i64], limit: usize) -> Vec<i64> {{\n"
        "    // Keep the first `limit` items that are positive.\n"
        "    items.iter().copied().filter(|&x| x > 0).take(limit).collect()\n"
        "}}"
    ),
    "go": (
        "func {camel}(items []int, limit int) []int {{\n"
        "\tkept := []int{{}}\n"
        "\tfor _, item := range items {{\n"
        "\t\tif item > 0 && len(kept) < limit {{\n"
        "\t\t\tkept = append(kept, item)\n"
        "\t\t}}\n"
        "\t}}\n"
        "\treturn kept\n"
        "}}"
    ),
    "bash": (
        "#!/usr/bin/env bash\n"
        "# Keep the first N positive numbers from the arguments.\n"
        "{name}() {{\n"
        "  local limit=$1; shift\n"
        '  printf "%s\\n" "$@" | awk \'$1 > 0\' | head -n "$limit"\n'
        "}}\n"
        "{name} 3 3 -1 4 1 -5 9"
    ),
    "sql": (
        "-- The first ten positive values, newest first.\n"
        "SELECT id, value\n"
        "FROM {name}\n"
        "WHERE value > 0\n"
        "ORDER BY created_at DESC\n"
        "LIMIT 10;"
    ),
}


def code_language(prompt: str) -> str | None:
    """The language a prompt asks code in (Python when it names none); None if it asks none:
    it names code ("a function", "a script", ...) or asks to write one in a named language."""
    words = [w.lower() for w in re.findall(r"[A-Za-z+#]+", prompt)]
    named = next((_LANGUAGES[w] for w in words if w in _LANGUAGES and w != "go"), None)
    if named is None and ("golang" in words or " in go" in prompt.lower()):
        named = "go"
    writes = any(w in ("write", "show", "implement", "code") for w in words)
    if not _CODE_WORDS.search(prompt) and not (named and writes):
        return None
    return named or "python"


def asks_for_table(prompt: str) -> bool:
    return _TABLE_WORDS.search(prompt) is not None


def code_block(language: str, keyword: str) -> str:
    """A short, runnable-looking fenced block in ``language`` named after the topic."""
    name = re.sub(r"[^a-z0-9]+", "_", keyword.lower()).strip("_") or "items"
    name = f"keep_{name}" if name[0].isdigit() else name
    camel = name.split("_")[0] + "".join(p[:1].upper() + p[1:] for p in name.split("_")[1:])
    body = _CODE_TEMPLATES[language].format(name=name, camel=camel)
    return f"```{language}\n{body}\n```"


def table(kws: list[str]) -> str:
    """A small comparison table of the prompt's keywords (aligned columns, GFM)."""
    rows = [
        ("start small", "fast feedback", "missing the big picture"),
        ("measure first", "no guessing", "time spent on numbers"),
        ("compare two", "a clear choice", "false precision"),
    ]
    lines = ["| Topic | Approach | Strength | Watch out for |", "| :--- | :--- | :---: | ---: |"]
    for kw, (approach, strength, risk) in zip(kws, rows):
        lines.append(f"| **{kw}** | {approach} | {strength} | {risk} |")
    return "\n".join(lines)


def more(prompt: str, part: int) -> str:
    """Another paragraph to extend an answer to any length (X-Sim-Tokens)."""
    w = _Writer(prompt, f"more{part}")
    return f"\n\n### Part {part}\n\n{w.sentences(_SENTENCES, 4)}"


def thinking(prompt: str) -> str:
    w = _Writer(prompt, "think")
    return " ".join(w.fill(t) for t in _THINK[: 4 + w.rng.randint(0, 3)])


_SPOKEN_TOPICS = [
    "the weather this weekend",
    "a walk along the river",
    "planning a small garden",
    "learning to cook rice",
    "the morning train schedule",
    "a new book about history",
    "fixing a slow laptop",
    "the local football match",
    "saving energy at home",
]


def transcript(seed: str) -> str:
    """A plain spoken-style passage for audio the simulator did not make itself."""
    rng = random.Random(seed_of("transcript", seed))
    topic = rng.choice(_SPOKEN_TOPICS)
    w = _Writer(topic, seed)
    w.topic = topic
    return f"{w.fill(w.rng.choice(_OPENERS))} {w.sentences(_SENTENCES, 2)}"


def tokens(text: str) -> list[str]:
    """Cut text into token-like pieces (a word or a punctuation mark with its leading space)."""
    pieces = _TOKEN.findall(text)
    joined = "".join(pieces)
    if joined != text:  # trailing whitespace
        pieces.append(text[len(joined) :])
    return pieces


def answer_tokens(prompt: str, n: int | None, variant: int = 0) -> list[str]:
    """The answer's tokens, extended or cut to exactly n when asked (X-Sim-Tokens)."""
    toks = tokens(answer(prompt, variant))
    if n is None:
        return toks
    part = 2
    while len(toks) < n:
        block = tokens(more(prompt, part))
        toks.extend(block * max(1, min(200, (n - len(toks)) // max(1, len(block)))))
        part += 1
    return toks[:n]


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))
