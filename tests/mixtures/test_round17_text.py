"""Issue 45, round 17 (b45l): text exports, terminal copies and pages whose turns are marked on one side only, each
read as a class (bench/traces_dev_extra.tsv, "round 17"; the spent fifteenth holdout's text rows). Sources without
a licence, or under the GPL, are rebuilt here from their layout, quoting a few of their words; each names its
repository and commit."""

from __future__ import annotations

from pathlib import Path

from codemix.mixtures.transcript_formats import parse_text


def roles(transcript) -> list[str]:
    return [m["role"] for m in transcript.messages]


# The llm CLI's LangChain agent plugin's README (thiswillbeyourgithub/llm_agent cde8f38, GPL-3.0: its layout rebuilt),
# a verbose run pasted from the terminal without colours: the prompt echoed after ``>``, the executor's chain, a tool
# that runs its own agent (a nested chain), an LLMChain's formatted prompt, a progress line and a plan printed between.
PLAIN_CHAIN = """## DEMO
Question was: `Use bigtask to compare salmon and tuna`

```
Type 'exit' or 'quit' to exit
>  Use bigtask to tell me if salmon or tuna is the worst in terms of bioaccumulation


> Entering new AgentExecutor chain...
'''json
{
    "action": "BigTask",
    "action_input": "Compare bioaccumulation of pollutants in salmon and tuna"
}
'''

> Entering new LLMChain chain...
Prompt after formatting:

At the end, I want to answer the question 'Compare bioaccumulation'. Please generate up to 5 steps.

> Finished chain.
Executing complicated task: 0step [00:00, ?step/s]
Here is the task planning:
1. Research the bioaccumulation of pollutants in salmon and tuna. TODO

Your current task is #1


> Entering new AgentExecutor chain...
'''json
{
    "action": "duckduckgo_search",
    "action_input": "bioaccumulation of pollutants in salmon and tuna"
}
'''
Observation: Once heavy metals enter the aquatic systems, they accumulate in fish.
Thought:'''json
{
    "action": "Final Answer",
    "action_input": "Heavy metals accumulate more in larger predators."
}
'''

> Finished chain.
Executing complicated task: 1step [00:06,  6.47s/step]

Observation: Tuna accumulates more pollutants than salmon.
Thought:'''json
{
    "action": "Final Answer",
    "action_input": "Tuna is worse than salmon for bioaccumulation."
}
'''

> Finished chain.
Tuna is worse than salmon for bioaccumulation.
>
```
"""


def test_a_chain_printed_without_colours_is_read_by_its_react_labels():
    """No colour tells the model's words from a tool's: ``Observation:`` opens a tool's output, a JSON action blob
    (or ``Action:`` lines) is the model's call, ``Final Answer`` its words; the nested agent's steps sit between
    the outer call and its observation, and what the program printed between chains is no one's turn."""
    assert "\x1b[" not in PLAIN_CHAIN, "guard: no colour at all"
    [run] = parse_text(PLAIN_CHAIN)
    assert run.format == "chain-log"
    assert roles(run) == ["user", "assistant", "assistant", "tool", "assistant", "tool", "assistant"]
    assert run.messages[0]["content"].startswith("Use bigtask to tell me")
    assert [c["name"] for m in run.messages for c in m.get("tool_calls") or []] == ["BigTask", "duckduckgo_search"]
    assert run.messages[4]["content"] == "Heavy metals accumulate more in larger predators."
    assert run.messages[-1]["content"] == "Tuna is worse than salmon for bioaccumulation."
    said = "\n".join(m["content"] for m in run.messages)
    assert "Prompt after formatting" not in said and "task planning" not in said and "step/s" not in said


def test_a_chain_whose_tools_never_answered_is_no_run():
    """An LLMChain's formatted prompt between chain edges, with no step and no observation, is no run."""
    text = "> Entering new LLMChain chain...\nPrompt after formatting:\nTranslate 'cat' to French.\n\n> Finished chain.\n"
    assert not parse_text(text)


# LangChain's zero-shot ReAct agent run from Python's REPL, as its early docs printed it (no colours): the first
# thought unlabelled, ``Action:`` / ``Action Input:`` lines, ``Final Answer:``.
REPL_CHAIN = """>>> agent.run("Who is Leo DiCaprio's girlfriend? What is her current age raised to the 0.43 power?")


> Entering new AgentExecutor chain...
 I need to find out who Leo DiCaprio's girlfriend is and then calculate her age raised to the 0.43 power.
Action: Search
Action Input: "Leo DiCaprio girlfriend"
Observation: Camila Morrone
Thought: I need to find out Camila Morrone's age
Action: Search
Action Input: "Camila Morrone age"
Observation: 25 years
Thought: I now know the final answer
Final Answer: Camila Morrone, whose age raised to the 0.43 power is 3.99.

> Finished chain.
"""


def test_a_plain_react_chain_takes_its_request_from_the_call_echoed_before_it():
    """The run's request is the question the echoed ``agent.run(...)`` passes; the unlabelled first thought is the
    model's, not the request's (``react-text`` would read it as part of the task)."""
    [run] = parse_text(REPL_CHAIN)
    assert run.format == "chain-log"
    assert roles(run) == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert run.messages[0]["content"] == "Who is Leo DiCaprio's girlfriend? What is her current age raised to the 0.43 power?"
    assert run.messages[1]["content"].startswith("I need to find out who")
    assert [c["name"] for c in run.messages[1]["tool_calls"]] == ["Search"]
    assert run.messages[2]["content"] == "Camila Morrone" and run.messages[2]["observation"]


# AutoGen's tool-use chat rewritten as Markdown (natanielf/CPSC_298_LLMs 31326ed,
# assignments/day-planner-agents/EXAMPLE_CONVERSATION.md, no licence: its layout rebuilt): bold addressed headers,
# a ``---`` rule after each message, the executor's print after the rule, an empty message, call ids in parentheses.
ADDRESSED_MD = """# Example Conversation

---

**User proxy (to Clothing assistant):**

What should I wear today?

---

**Clothing assistant (to User proxy):**

Suggested tool call (call_dgyr): get_state

Arguments: {}

---

EXECUTING FUNCTION get_state...

**User proxy (to Clothing assistant):**

Response from calling tool (call_dgyr)

{"temp_fahrenheit": "65", "description": "Partly cloudy"}

---

**Clothing assistant (to User proxy):**

A light shirt and a sweater for the breeze.

---

**User proxy (to Clothing assistant):**

---

**User proxy (to Activity assistant):**

What should I do today?

---

**Activity assistant (to User proxy):**

Visit the museum while it stays cloudy.

---
"""


def test_bold_addressed_headers_read_as_speakers_and_a_call_id_pairs_a_call_with_its_result():
    """``**A (to B):**`` headers are AutoGen's addressed messages set in bold; a message is closed by its ``---``
    rule (the executor's print after it and an empty message are no one's words); the model's message that names
    a call id (``(call_dgyr): get_state``, ``Arguments:``) is that call, and the relayed message naming the same id
    is its result, the tool's turn."""
    [run] = parse_text(ADDRESSED_MD)
    assert run.format == "marker-turns"
    assert roles(run) == ["user", "assistant", "tool", "assistant", "user", "assistant"]
    call = run.messages[1]
    assert call["content"] == "" and [(c["id"], c["name"]) for c in call["tool_calls"]] == [("call_dgyr", "get_state")]
    assert run.messages[2]["observation"] and "Partly cloudy" in run.messages[2]["content"]
    assert not any("EXECUTING FUNCTION" in m["content"] or m["content"] == "---" for m in run.messages)


# LM Studio's chat exported as Markdown (nithinshyam13/lmstudio-export-chat 08c411b, example.conversation.md, no
# licence: its layout rebuilt): a title, ``## User`` / ``## Assistant`` headings, every body in a bare fence.
FENCED_TURNS = """# test

## User
```
Hi!
```

## Assistant
```
Hello! How can I assist you today?
```

## User
```
Who wrote the paper on ReAct agents?
```

## Assistant
```
Shunyu Yao and colleagues, in 2022.
```
"""


def test_an_exporter_that_fences_every_turn_has_its_fences_taken_off():
    """Nine in ten turns (four or more) each one bare fence, the replies' prose too: the exporter's fence, not code
    the speakers wrote; the words are kept without it (a reply would otherwise teach the model to answer in a fence)."""
    [run] = parse_text(FENCED_TURNS)
    assert run.format == "markdown-turns"
    assert [m["content"] for m in run.messages] == ["Hi!", "Hello! How can I assist you today?",
                                                    "Who wrote the paper on ReAct agents?",
                                                    "Shunyu Yao and colleagues, in 2022."]


def test_a_reply_whose_code_is_fenced_keeps_its_fence():
    """One turn of four a fence is a speaker's code, not the exporter's way: it stays fenced."""
    text = FENCED_TURNS.replace("```\nHi!\n```", "Hi!").replace("```\nWho wrote", "Who wrote").replace(
        "agents?\n```", "agents?").replace("```\nHello! How can I assist you today?\n```", "Hello! How can I assist you today?")
    [run] = parse_text(text)
    assert run.messages[-1]["content"] == "```\nShunyu Yao and colleagues, in 2022.\n```"


# Obsidian Copilot's saved conversation (laiyinyizao007/obs-averivendell 6f60ef8, copilot/copilot-conversations/
# Summarize_the_recent_updates_from_note.@20251230_034946.md: its layout rebuilt): front matter, ``**user**:`` /
# ``**ai**:`` labels, the note the person attached and each turn's time in bracketed stamp lines.
STAMPED = """---
epoch: 1767037786951
modelKey: "gemini-2.5-flash|google"
tags:
  - copilot-conversation
---

**user**: hi
[Context: Notes: 2025-12-30.md]
[Timestamp: 2025/12/30 03:50:13]

**ai**: Hello! How can I help you today?
[Timestamp: 2025/12/30 03:50:14]

**user**: what can you do
[Context: Notes: 2025-12-30.md]
[Timestamp: 2025/12/30 03:50:33]

**ai**: I can answer questions about your notes, search your vault and summarize notes.
[Timestamp: 2025/12/30 03:50:35]
"""


def test_an_exporter_s_stamp_lines_in_every_turn_are_taken_out():
    """``[Timestamp: ...]`` closes every turn: the exporter's stamp, no one's words (in the model's turns it would be
    trained). ``[Context: ...]`` sits in the person's turns only: it may be what the turn says, and stays."""
    [run] = parse_text(STAMPED)
    assert roles(run) == ["user", "assistant", "user", "assistant"]
    assert run.messages[1]["content"] == "Hello! How can I help you today?"
    assert not any("Timestamp" in m["content"] for m in run.messages)
    assert run.messages[0]["content"] == "hi\n[Context: Notes: 2025-12-30.md]"


def test_field_labels_in_one_corner_of_an_answer_are_no_dialogue():
    """A Perplexity export (mrmeman555/SavanteContextBridge 22467a9, 02_Transcripts/Genesis_Transcript.md, no licence:
    its layout rebuilt) whose answer lists three ``**Function**:`` / ``**Cognitive Analogue**:`` pairs: the two labels
    take turns and the last one would run to the page's end, but they sit in one corner of the page: no chat."""
    prose = "\n\n".join(f"Paragraph {i} of the answer explains the blueprint and what it does for the reader in depth."
                         for i in range(40))
    fields = "\n\n".join(f"### {name}\n\n**Function**: {role}\n**Cognitive Analogue**: {analogue}\n\nWhy does it matter? "
                          "It shows the principle at work in a document of its own." for name, role, analogue in (
                              ("Blueprint", "Architectural specification", "Prefrontal executive function"),
                              ("Librarian", "Recursive instantiation engine", "Distributed working memory"),
                              ("Generator", "Domain-specific control surface", "Sensorimotor integration")))
    text = f"# hello..\n\nGive a deep dive on this doc\n\n{prose}\n\n{fields}\n\n{prose}\n"
    assert text.count("**Function**:") == 3 and text.count("**Cognitive Analogue**:") == 3, "guard: three pairs"
    assert not parse_text(text)


# A ChatGPT talk retold in a Japanese README (winofsql/chat-gpt-vbscript-talk-0503 56416a1, README.md: its layout
# rebuilt): the person's avatar screenshot over each prompt (the same image, its URL's ids differing once), the
# prompt in a txt fence, each reply under ``### 🔴 ChatGPT``.
AVATAR = "![image](https://user-images.githubusercontent.com/1501327/235878641-947b906f-e138-46b5-8475-2bf04c169132.png)"
ONE_SIDE = f"""# chat-gpt-vbscript-talk-0503

- ChatGPT のコードは必ずしも動作しません。

{AVATAR.replace("235878641-947b906f", "235878616-973cf1d1")}
```txt
VBScript でプログラムを作成してください
```

### 🔴 ChatGPT
```txt
申し訳ありませんが、VBScript は推奨されていません。Python で書きます。
```

{AVATAR}
```txt
拡張子 .wsf の VBScript で作成してください
```

### 🔴 ChatGPT
```txt
以下は、要件に基づいて作成された VBScript ファイルの例です。
```

{AVATAR}
```
バッチファイルで作成してください
```

### 🔴 ChatGPT
```
以下は、Windows のバッチファイルの例です。
```
"""


def test_one_side_labelled_by_headings_the_other_by_a_recurring_image_line():
    """The replies are headed (``### 🔴 ChatGPT``), the prompts not: the line of one shape that recurs once before each
    reply's heading (the avatar image; numbers and hex ids aside) is the person's label, no one's words."""
    [run] = parse_text(ONE_SIDE)
    assert roles(run) == ["user", "assistant"] * 3
    assert run.messages[0]["content"] == "```txt\nVBScript でプログラムを作成してください\n```"
    assert not any("githubusercontent" in m["content"] for m in run.messages)


def test_a_recurring_line_of_words_is_no_side_s_label():
    """A line of words that recurs before each reply's heading (``Next prompt``) is someone's words, not decoration:
    it labels no side, and the page of headed replies alone is no chat."""
    text = ONE_SIDE.replace(AVATAR.replace("235878641-947b906f", "235878616-973cf1d1"), "Next prompt").replace(
        AVATAR, "Next prompt")
    assert text.count("Next prompt") == 3, "guard: the line recurs before each heading"
    assert not parse_text(text)


ATTRIBUTE_DUMP = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "printed-attributes" / \
    "trpc-agent-go.draft.md"


def test_a_dump_of_turns_printed_attribute_by_attribute_reads_each_turn_and_each_result():
    """trpc-agent-go's draft.md (f310e00, Apache-2.0): each ``Turn N.M`` block of ``reasoning_content=`` / ``content=``
    / ``tool_calls=[ChatCompletionMessageToolCall(...)]`` lines is a model message (the call's repr read as its
    fields, the reasoning kept as reasoning), each ``tool_result(name): ...`` line the tool's turn."""
    text = ATTRIBUTE_DUMP.read_text()
    assert text.count("\nTurn ") + text.startswith("Turn ") == 4 and text.count("tool_result(") == 2, "guard: the dump"
    [run] = parse_text(text)
    assert run.format == "printed-attributes"
    assert roles(run) == ["assistant", "tool", "assistant", "tool", "assistant", "assistant"]
    assert [c["name"] for c in run.messages[0]["tool_calls"]] == ["get_date"]
    assert run.messages[2]["tool_calls"][0]["arguments"] == '{"location": "Hangzhou", "date": "2025-12-02"}'
    assert run.messages[0]["reasoning"].startswith("The user is asking about the weather in Hangzhou")
    assert run.messages[1]["content"] == "2025-12-01" and run.messages[3]["content"] == "Cloudy 7~13°C"


# An ``llm logs`` page of the llm CLI's Markdown output (irthomasthomas/undecidability 69c602b,
# llm/conversations-db/01h9dekbwygk4jenj459pgdn7p.md, no licence: its layout rebuilt).
LLM_LOGS = "\n".join(f"""**Prompt:**
{prompt}

**Response:**
{reply}

<details><summary>Metadata</summary>

- Duration: {duration} ms
- Datetime: 2023-09-03T12:0{i}:31.070834
- Model: gpt-3.5-turbo-0613

</details>

**Options:**
```json
{{}}
```
""" for i, (prompt, reply, duration) in enumerate((
    ("Write a jq query that reads the datetime and the model", "Here is the jq query: `.[].datetime_utc`.", 7838),
    ("It returns nothing, why?", "The list may be empty; try `.[0].datetime_utc` instead.", 5969),
    ("How do I index each entry?", "Use `.[N]` with the entry's position, starting at zero.", 7804))))


def test_the_lines_every_reply_ends_with_are_the_log_s_own():
    """Every response ends with lines of one shape (numbers aside): the metadata ``<details>`` and the ``**Options:**``
    block are the log's, not the model's words (before, they were read as a tool's output and a second reply)."""
    [run] = parse_text(LLM_LOGS)
    assert roles(run) == ["user", "assistant"] * 3
    assert run.messages[1]["content"] == "Here is the jq query: `.[].datetime_utc`."
    assert not any("Duration" in m["content"] or "Options" in m["content"] for m in run.messages)


# A ChatGPT chat saved by a browser-console script (xobiomesh/chatgptConvserationSaver e90bbd9, conversation.md, no
# licence: its layout rebuilt): the page's code block copied with its header (``javascript`` / ``Copy code``) and
# no fence, so its lines read as a source file's.
COPIED_CODE = """**User:** please modify the script to save the conversation as a md file

**Assistant:** Let's modify the script to save the conversation as a Markdown file. Here's the adjusted script:

javascript
Copy code
(function() {
    const conversation = [];
    const messages = document.querySelectorAll("div[data-message-author-role]");

    messages.forEach((msg, index) => {
        const role = msg.getAttribute('data-message-author-role');
        conversation.push({ role, text: msg.innerText });
    });

    if (conversation.length > 0) {
        const blob = new Blob([JSON.stringify(conversation)], { type: 'text/markdown' });
        console.log('Conversation saved');
    }
})();

In this script:

We iterate over the chat messages and build the Markdown text.
"""


def test_a_chat_page_s_code_block_copied_without_its_fence_is_fenced_again():
    """``javascript`` / ``Copy code`` is the page's block header, no one's words: the code under it is fenced again
    (to the first prose line after a blank one), so the chat is read instead of refused as source code."""
    [run] = parse_text(COPIED_CODE)
    assert roles(run) == ["user", "assistant"]
    reply = run.messages[1]["content"]
    assert "Copy code" not in reply and "```javascript\n(function() {" in reply
    assert "})();\n```" in reply and reply.rstrip().endswith("We iterate over the chat messages and build the Markdown text.")


# --- after the sixteenth holdout's run (FIT: layouts of its text rows, rebuilt) ----------------------------------------

# A retrieval agent's console session pasted as text (MONIKA1234535/Research_agent 4215496, sample_run.txt, no
# licence: its layout rebuilt).
PROMPTED_CONSOLE = "\n".join(f"""Enter a question (or 'quit' to exit): {question}

Answer:
{answer}

Sources used:
  [Source 1] company_policy.txt (score: 0.327)
  [Source 2] product_spec.txt (score: 0.085)
""" for question, answer in (("What AI tools are employees approved to use?", "Claude and ChatGPT [Source 1]."),
                             ("What is the monthly token budget per employee?", "2 million tokens [Source 1]."),
                             ("Who is the current CEO?", "The provided sources do not say."),
                             ("exit", "The provided sources do not contain enough information."))) + \
    "\nEnter a question (or 'quit' to exit): quit\nPS C:\\Users\\user\\research_agent>"


def test_a_program_s_own_prompt_before_the_typed_question_opens_the_person_s_turn():
    """The prompt sentence recurs at line starts with a question typed after it: the question is the person's, the
    program's print until its next prompt the answer; its ``Sources used:`` section (in every answer, no reply's
    word) is the program's print; ``exit``, answered, was a question; the final ``quit`` is the program's command."""
    [run] = parse_text(PROMPTED_CONSOLE)
    assert roles(run) == ["user", "assistant"] * 4
    assert run.messages[0]["content"] == "What AI tools are employees approved to use?"
    assert run.messages[1]["content"] == "Claude and ChatGPT [Source 1]."
    assert run.messages[6]["content"] == "exit"
    assert not any("score:" in m["content"] or "quit" == m["content"] for m in run.messages)


# The ReflecTool clinical agent framework's run log (BlueZeros/ReflecTool 666885a, agent.log, Apache-2.0: its layout
# rebuilt, shortened): the task package each agent receives (its tool list, the person's input), numbered steps
# with the call's name and parameters, an observation after each, the finishing step's answer echoed.
PACKAGE = """Agent Task_Agent receives the following TaskPackage:
[
\tTask ID: -1

\tAction Space: Action: DrugBank[{{"drug_name": "this is the name of the drug to be searched"}}]
Action: Finish[{{"response": "this is the finish action response."}}]

\tInputs: {question}

\tInstruction: 
]
====Task_Agent starts execution on TaskPackage -1====
"""
STEP = """Agent Task_Agent takes {n}-step Action:
{{
\tname: {name}
\tparams: {{'{key}': '{value}'}}
}}
Observation: {observation}
"""
NUMBERED_LOG = (PACKAGE.format(question="Which antibiotic treats an uncomplicated urinary tract infection?")
                + STEP.format(n=0, name="Plan", key="response", value="Search the drug database.", observation="OK")
                + STEP.format(n=1, name="DrugBank", key="drug_name", value="nitrofurantoin",
                              observation='{"name": "Nitrofurantoin", "description": "a nitrofuran antibiotic"}')
                + STEP.format(n=2, name="Finish", key="response", value="D. Nitrofurantoin", observation="D. Nitrofurantoin")
                + "=========Task_Agent finish execution. TaskPackage[ID:-1] status:\n[\n\tcompletion: completed\n]\n"
                + PACKAGE.format(question="hello, can you explain me about the fever?")
                + STEP.format(n=0, name="Think", key="response", value="Fever is a raised temperature.", observation="OK")
                + STEP.format(n=1, name="Finish", key="response", value="Fever is an elevation in body temperature.",
                              observation="Fever is an elevation in body temperature."))


def test_a_framework_s_numbered_steps_are_calls_answered_by_observations():
    """A header recurring with only its step number changing opens the model's step, its ``name:`` / ``params:`` the
    call, ``Observation:`` the tool's turn; ``Finish`` is the answer (its echoed observation no one's turn); the
    numbers starting again open another run, whose request is the last ``Inputs:`` before it (react-text read the
    tool list's ``Action:`` lines as steps)."""
    first, second = parse_text(NUMBERED_LOG)
    assert roles(first) == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert first.messages[0]["content"] == "Which antibiotic treats an uncomplicated urinary tract infection?"
    assert [c["name"] for m in first.messages for c in m["tool_calls"]] == ["Plan", "DrugBank"]
    assert first.messages[-1]["content"] == "D. Nitrofurantoin"
    assert roles(second) == ["user", "assistant", "tool", "assistant"]
    assert second.messages[0]["content"] == "hello, can you explain me about the fever?"


# An Ollama CLI session pasted into Markdown (AdaTastic/AstraCodex 71c742c, plans/history.md, no licence: its layout
# rebuilt): a note, the shell line that started the REPL, one prompt the terminal wrapped (``... ``), the model's
# printed reasoning closed by ``</think>``, an answer showing message objects, the REPL waiting.
OLLAMA = """Hrm interesting

C:\\Users\\Ada>ollama run glm47-tools-16k:latest
>>> Im building my own agentic system so what format do you expect for tools and conversatio
... n history? Dont repeat and be concise
The user asks for the expected formats. Keep it short: tools, history, flow.</think>**Conversation History:**
A continuous stream of messages:
```json
[{"role": "user", "content": "..."}, {"role": "assistant", "content": "...", "tool_calls": [{"name": "x", "arguments": {...}}]}]
```

>>> Send a message (/? for help)
"""


def test_one_ollama_exchange_launched_in_view_is_read_with_its_reasoning():
    """The shell line starting the REPL shows the session, so one exchange is one; the wrapped line continues the
    prompt; the text before ``</think>`` is reasoning; the message objects in the answer are its example (the printed
    readers must not take them for the run); the last, empty prompt is the REPL waiting."""
    [run] = parse_text(OLLAMA)
    assert roles(run) == ["user", "assistant"]
    assert run.messages[0]["content"].endswith("conversation history? Dont repeat and be concise")
    assert run.messages[1]["reasoning"].startswith("The user asks for the expected formats")
    assert run.messages[1]["content"].startswith("**Conversation History:**")
