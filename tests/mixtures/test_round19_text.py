"""Issue 45, round 19 (b45l): text exports and session logs read from their own structure (bench/traces_dev_extra.tsv,
"round 19"). Sources without a licence are rebuilt here from their layout, quoting a few of their words; each names
its repository and commit."""

from __future__ import annotations

from codemix.mixtures.transcript_formats import parse_text


def roles(transcript) -> list[str]:
    return [m["role"] for m in transcript.messages]


# aider's chat history with architect and editor models (BjornNordblom/pocketflow-text2sql-gui fa36619,
# .aider.chat.history.md, the spent seventeenth holdout, no licence: its session line and lines 6,425-6,470 rebuilt,
# the replies shortened): after a reply aider tells the person its token count, the edits it applied and the
# commits; a rate-limited provider makes it print the error and its retries, then the reply comes.
RATE_LIMITED = ('> litellm.RateLimitError: RateLimitError: OpenrouterException - {"error":{"message":"Provider returned '
                'error","code":429}}  \n> The API provider has rate limited you. Try again later or check your quotas.  \n'
                '> Retrying in 0.2 seconds...  \n')
ARCHITECT_HISTORY = (
    "# aider chat started at 2025-08-06 12:06:30\n\n"
    "> Tokens: 7.6k sent, 442 received.  \n> .gitignore  \n"
    "> Allow edits to file that has not been added to the chat? (Y)es/(N)o [Yes]: y  \n"
    "> Committing .gitignore before applying edits.  \n> Applied edit to .gitignore  \n"
    "> Commit d4c06d0 chore: add comprehensive .gitignore for Python, Node, and tooling  \n"
    "> You can use /undo to undo and discard each aider commit.  \n\n"
    "#### -ask  \n" + RATE_LIMITED + "\n"
    "I need a bit more information to proceed. Could you clarify what you'd like me to do next?\n\n"
    "> Tokens: 9.0k sent, 90 received.  \n\n"
    "#### /ask I nodes.py used in the backend project?  \n\n"
    "#### I nodes.py used in the backend project?  \n\n"
    "From the current repository contents you shared, there is no nodes.py file.\n\n"
    "> Tokens: 7.2k sent, 130 received.  \n\n"
    "#### /clear  \n> All chat history cleared.  \n\n"
    "#### /run pytest -q  \n> Add 0.6k tokens of command output to the chat? (Y)es/(N)o [Yes]: y  \n"
    "> Added 17 lines of output to the chat.  \n\n"
    "#### Fix the failing test  \n\nThe test expects the schema route; here is the change.\n")


def test_aider_s_notices_and_commands_are_no_messages():
    """What the model was sent is the messages: aider's ``>`` notices (tokens, edits, commits, rate limits, its
    questions) and the commands to aider itself (``/ask x`` is echoed as ``#### x``, ``/clear``, ``/run``) are
    counted on the transcript; a run's output aider added to the chat is not in the file (it printed only its word)."""
    before, after = parse_text(ARCHITECT_HISTORY)
    assert roles(before) == ["user", "assistant", "user", "assistant"]
    assert [m["content"] for m in before.messages if m["role"] == "user"] == [
        "-ask", "I nodes.py used in the backend project?"]
    assert before.extra["aider_notices"] == 4 and before.extra["aider_commands"] == 2
    assert not any("Tokens:" in m["content"] or "RateLimitError" in m["content"] for m in before.messages)
    assert roles(after) == ["user", "assistant"] and after.extra["aider_commands"] == 1
    assert after.extra["aider_notices"] == 2 and after.extra["after_clear"] == 1
