"""Issue 45, round 18 (b45l): chat pages and session logs read from their own structure (bench/traces_dev_extra.tsv,
"round 18"). Sources without a licence are rebuilt here from their layout, quoting a few of their words; each names
its repository and commit."""

from __future__ import annotations

from codemix.mixtures.transcript_formats import parse_text
from codemix.mixtures.transcript_formats.markers import labelled_lines


def roles(transcript) -> list[str]:
    return [m["role"] for m in transcript.messages]


# ChatGPT's page of 2022 saved whole by a page-saving extension (thomasantony/thomasantony.github.io-src b423ccc,
# content/chatgpt/ChatGPT_maze.html, no licence: its layout rebuilt): each message one ``ConversationItem`` element,
# the person's and the model's told apart only by their class tokens and their avatars; no class names a role.
WRAPPER = "ConversationItem__ConversationItemWrapper-sc-18srrdc-0 iaEgGV group"
PERSON = f'<div class="{WRAPPER} dark:bg-gray-800"><div class="ConversationItem__Role"><img alt="me@example.com" src="a.png"/></div>' \
         '<div class="min-h-[20px] whitespace-pre-wrap">{}</div></div>'
MODEL = f'<div class="{WRAPPER} bg-gray-50 dark:bg-[#444654]"><div class="ConversationItem__Role"><svg><path d="M37.5 16.8"/></svg>' \
        '</div><div class="markdown prose"><p>{}</p></div></div>'
SAVED_PAGE = ("<!DOCTYPE html>\n<html><head><title>Modified HTML Document</title></head><body>"
              '<a href="/chatgpt">&lt; Back</a><div class="ThreadLayout__NodeWrapper-sc-wfs93o-0 izqTqW">'
              + PERSON.format("Give me a good simple idea for a video game that I can build in a day")
              + MODEL.format("Here is a simple idea for a video game that you could build in a day: players navigate a "
                             "series of increasingly challenging mazes to find the exit.")
              + PERSON.format("show an simple example of what this game would look like using SVG")
              + MODEL.format("Here is an example of what a level of the game might look like, drawn with rectangles for "
                             "walls and a circle for the player.")
              + "</div></body></html>")


def test_two_kinds_of_one_element_taking_turns_are_a_chat_page():
    transcripts = parse_text(SAVED_PAGE)
    assert transcripts and transcripts[0].format == "html-messages"
    assert roles(transcripts[0]) == ["user", "assistant", "user", "assistant"]
    assert transcripts[0].messages[0]["content"] == "Give me a good simple idea for a video game that I can build in a day"
    assert "M37.5" not in transcripts[0].messages[1]["content"]  # the avatar's drawing is no one's words


def test_a_chat_pages_code_block_stays_fenced_and_indented():
    code = ('<pre><div class="CodeSnippet__Wrapper-sc-1ifybgh-0 ekUQru"><code class="hljs language-python">'
            'def draw_maze(screen, maze):\n    for y in range(len(maze)):\n        pass\n</code></div></pre>')
    page = SAVED_PAGE.replace("a circle for the player.</p>", "a circle for the player.</p>" + code)
    reply = parse_text(page)[0].messages[3]["content"]
    assert "```\ndef draw_maze(screen, maze):\n    for y in range(len(maze)):\n        pass\n```" in reply


def test_rows_told_apart_by_stripes_are_no_chat():
    rows = "".join(f'<tr class="row {"odd" if i % 2 else "even"}"><td>Setting number {i} changes how the parser treats '
                   f"blank lines in the input, and it is off by default.</td></tr>" for i in range(8))
    page = f"<!DOCTYPE html><html><body><table>{rows}</table></body></html>"
    striped = page.replace("<tr ", "<div ").replace("</tr>", "</div>").replace("<td>", "").replace("</td>", "")
    assert not parse_text(page) and not parse_text(striped)


# A Claude chat saved every few minutes by a PowerShell script, in Russian (feya365-alt/claude-chat-logs ffefc6e,
# chat-logs/chat_2026-05-29_18-00.md, no licence: its layout rebuilt): each turn's label logged with its time; the
# person's label in Cyrillic, the model's its name; the requests ask nothing (no ``?``); the model writes several
# messages to one request.
TIMED_LABELS = """\ufeff# Чат Claude — 2026-05-29_18-00

Сессия: `c655c92c-d59a-4079-a87e-0ed385b6979b`

---

### Пользователь [17:49:08]

создай репозиторий, подключись к нему и сохрани этот чат.

### Claude [17:49:29]

Начну с проверки окружения и создания репозитория.

---

### Claude [17:49:50]

Git и GitHub CLI не найдены в PATH. Проверю, установлены ли они в системе.

---

### Пользователь [17:54:03]

готово, авторизация завершена.

### Claude [17:54:07]

Отлично, продолжаю настройку репозитория.
"""


def test_labels_logged_with_their_time_take_turns_in_two_scripts():
    transcripts = parse_text(TIMED_LABELS)
    assert transcripts and transcripts[0].format == "markdown-turns"
    assert roles(transcripts[0]) == ["user", "assistant", "assistant", "user", "assistant"]
    assert transcripts[0].messages[0]["content"].startswith("создай репозиторий")


def test_untimed_section_headings_in_two_scripts_are_no_chat():
    page = TIMED_LABELS.replace(" [17:49:08]", "").replace(" [17:54:03]", "").replace(" [17:49:29]", "") \
        .replace(" [17:49:50]", "").replace(" [17:54:07]", "")
    assert not parse_text(page)  # nothing asks and nothing is logged with its time: a page's sections


# A VS Code agent's session kept by a PowerShell prompt logger (bizcad/RoadTrip fee7eb8, "PromptTracking/Session Log
# 20260205.md"; MIT, Copyright (c) 2026 Nicholas Stein): each entry under ``# Prompt: (time)`` / ``# Response: (time)``
# between the logger's HTML comments; a reply may come in two entries running (then the headings take turns less
# than nine times in ten and the log is read by its line markers, ``marker-turns``).
LOGGED_SESSION = """# Session Log 2026-02-05


# Prompt: (2026-02-05 12:01:10)
<!--Start Prompt-->
Yes please at the note to the readme.
<!--End Prompt-->


# Response: (2026-02-05 12:01:17)
<!--Start Response-->
I'll add a short todo, read the README, then patch it to include the note.

**Expected Output:**
```text
README_RoadTrip.md updated
```

If the patch fails, I will restore the file and tell you.

**Done**: Updated README_RoadTrip.md with a short note about the `RoadTrip PowerShell` profile.
Next: want me to commit these workspace changes?
<!--End Response-->


# Response: (2026-02-05 12:01:20)
<!--Start Response-->
Made changes.
<!--End Response-->


# Prompt: (2026-02-05 12:01:26)
<!--Start Prompt-->
Great! I think you can write a ps1 script that stages the changes and writes a commit message.
<!--End Prompt-->


# Response: (2026-02-05 12:01:38)
<!--Start Response-->
I'll add a todo tracking creation of the git push script, then create the PowerShell script in scripts.

**Expected Output:**
```text
scripts/git_push.ps1 created
```

If the script is there, the todo is marked complete.
<!--End Response-->


# Prompt: (2026-02-05 12:01:45)
<!--Start Prompt-->
I want the git_push.ps1 to scan the changed files and write a commit message describing them.
<!--End Prompt-->


# Response: (2026-02-05 12:01:54)
<!--Start Response-->
I'll update git_push.ps1 to stage changes first, generate a descriptive commit message, then push.
<!--End Response-->


# Prompt: (2026-02-05 12:02:02)
<!--Start Prompt-->
I want you to modify the .\\scripts\\git_push.ps1 so that has a self-test feature.
<!--End Prompt-->


# Response: (2026-02-05 12:02:09)
<!--Start Response-->
I'll update git_push.ps1 to add a `-DryRun` switch that prints the generated message.
<!--End Response-->
"""


def test_a_loggers_marker_lines_are_taken_out_of_every_turn():
    transcript = parse_text(LOGGED_SESSION)[0]
    assert transcript.format == "marker-turns"
    assert roles(transcript) == ["user", "assistant"] * 4
    for message in transcript.messages:
        assert "<!--" not in message["content"] and "2026-02-05" not in message["content"]
    assert transcript.messages[0]["content"] == "Yes please at the note to the readme."


def test_a_comment_in_a_few_turns_stays():
    kept = LOGGED_SESSION.replace("<!--Start Prompt-->\n", "", 3)  # the marker now opens one prompt in four
    transcript = parse_text(kept)[0]
    assert sum("<!--Start Prompt-->" in m["content"] for m in transcript.messages if m["role"] == "user") == 1


def test_an_expected_output_is_the_writers_own_words():
    # (in the development row, seven such labels among the markers split the model's replies into tools' outputs)
    markers = {label: role for *_, label, role in labelled_lines(LOGGED_SESSION)}
    assert markers["# prompt"] == "user" and "expected output" not in markers
    transcript = parse_text(LOGGED_SESSION)[0]
    assert "tool" not in roles(transcript)
    assert "README_RoadTrip.md updated" in transcript.messages[1]["content"]


# Node.js's API manual (/usr/share/doc/nodejs/api/assert.html, MIT): each example twice, as an ES module and as
# CommonJS, in ``<code class="language-js mjs">`` / ``<code class="language-js cjs">`` elements taking turns.
def test_a_manuals_code_examples_in_two_variants_are_no_chat():
    pairs = "".join(
        f'<pre><code class="language-js mjs">// Example {i}: the assertion passes because both values are the same number.\n'
        f"import assert from 'node:assert/strict';\nassert.strictEqual({i}, {i});</code>"
        f'<code class="language-js cjs">// Example {i}: the assertion passes because both values are the same number.\n'
        f"const assert = require('node:assert/strict');\nassert.strictEqual({i}, {i});</code></pre>" for i in range(4))
    page = f"<!DOCTYPE html><html><body><div class=\"api\"><p>Assert</p>{pairs}</div></body></html>"
    assert not parse_text(page)


# A home-made pydantic-ai agent's console over a local model (Stariller/pydantic_openai_agent a87c092,
# terminal_output.txt, no licence: its layout rebuilt): the shell line starting the program, its banner, the person's
# request behind a lone ``>``, the program's label naming the model alone on a line, and the reply printed behind ``>``
# again.
STARTED_CONSOLE = """(agent) michael@Main-PC:~/Programs/Python/pydantic_practice$ python3 main.py
Type `quit` to end program.
Make a request from gemma3:12b.
> Tell me about airforce hat standards.
gemma3:12b:
> Okay, let's break down the Air Force's hat standards, pulling information from the provided document excerpts.

**I. Physical Training Gear (PTG) Hats**

*   **General PT:** Installation commanders can authorize solid black, white, or dark blue caps.

To help me give you even more specific information, could you tell me which uniform you are interested in?
"""


def test_a_lone_prompt_of_a_program_started_in_view_is_its_prompt():
    transcript = parse_text(STARTED_CONSOLE)[0]
    assert roles(transcript) == ["user", "assistant"]
    assert transcript.messages[0]["content"] == "Tell me about airforce hat standards."
    assert transcript.messages[1]["content"].startswith("Okay, let's break down")
    assert transcript.messages[1]["name"] == "gemma3:12b"


def test_a_pages_quotes_are_no_prompts():
    page = STARTED_CONSOLE.split("\n", 1)[1]  # no program started in view: ``>`` quotes a line
    assert not any(t.format == "console-log" for t in parse_text(page) or [])


# A chat exported by topic as Markdown (GOUTHAM1926/cuda_proficiency fcd304c, chat_export.md, no licence: its layout
# rebuilt): ``**Q:**`` / ``**A:**`` labels, and in the answers bold labels of their own, each written once.
TOPIC_EXPORT = """# Chat Export — C, Python, Pointers & Memory Concepts

---

## Topic 1: Compiled vs Interpreted Languages

**Q:** ...what does he mean by first-hand look? and when they mean interpreted language, they mean python or what?

**A:**

**"Firsthand look" means** the author is saying we'll see this ourselves very soon, with a real example.

**The key differences summarized:** a compiler translates the whole program before it runs; an interpreter
translates it while it runs.

---

## Topic 2: Pass by Value and by Reference

**Q:** C arguments are passed by value, what does that mean? and in C++ we have references right?

**A:**

**Pass by Value:** the function gets a copy, so changing it leaves the caller's variable as it was.

**Pass by Reference:** the function works on the caller's variable itself, so a change is seen outside.

---

## Topic 3: Python's Types

**Q:** and we can only access 3 datatypes in python right, float32, int32 and float64 or what?

**A:**

**Python's built-in types:** there are many, not just three: int, float, complex, str, list, tuple and dict.
"""


def test_labels_written_once_are_the_answers_text():
    transcript = parse_text(TOPIC_EXPORT)[0]
    assert transcript.format == "labelled-dialogue"
    assert roles(transcript) == ["user", "assistant"] * 3
    assert "**Pass by Reference:**" in transcript.messages[3]["content"]


# Node.js's N-API manual (/usr/share/doc/nodejs/api/n-api.md, MIT): each function's history as YAML fields in a
# comment, ``added:`` / ``napiVersion:`` taking turns hundreds of times, and a few fields written once in plain text.
def test_fields_taking_turns_are_no_dialogue_even_with_labels_written_once():
    sections = "".join(
        f"### napi_create_{name}\n\n<!-- YAML\nadded: v8.{i}.0\nnapiVersion: 1\n-->\n\n```c\nnapi_status napi_create_{name}"
        f"(napi_env env, napi_value* result);\n```\n\nReturns `napi_ok` if the API succeeded. Why call it? It allocates a "
        f"new {name} value in the current scope and hands it back to the caller.\n\n" for i, name in enumerate(
            ("object", "array", "string", "symbol", "external", "promise", "date", "bigint")))
    page = f"# Node-API\n\ndescription: the C API for addons.\n\nversions: see the table below.\n\n{sections}"
    assert not any(t.format == "labelled-dialogue" for t in parse_text(page) or [])
