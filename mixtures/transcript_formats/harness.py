"""Turns a harness wrote in the person's place, told by the file's own structure: a notice said after the model's
first turn in many of one file's runs, word for word, that the model never answers (more of the harness's output
always follows it: a benchmark's "User chose to apply all your changes." before the test report it ran), and what
follows such a notice before the model speaks again. A person's words the model answers stay the person's, however
often a script repeats them (one conversation put to several models, a generator's fixed "Goodbye").
They are environment output (``observation``), never the person's words: the prose filters do not judge them as
the person's and the model is never taught to expect them from a person. docs/transcript-formats.md ("Harness-
written turns")."""

from __future__ import annotations

import collections
from typing import Any

# A text is the harness's once three runs or more of the file said it and one run in ten or more (a person's
# "thanks" recurs across a large file of chats, never in a tenth of them word for word).
MIN_RUNS = 3
MIN_SHARE = 0.1
# Rows of a file read in a first pass, before any is flagged, so its first runs are judged as its later ones are
# (a file's first rows say a notice before the rows read so far could show it repeated); bounded, so a dataset of
# millions of rows is read once more only this far.
FIRST_PASS_ROWS = 1000


def later_person_texts(messages: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    """The texts of the person's turns after the model's first turn (whitespace made single), each with whether the
    model speaks next (the turn is answered)."""
    said = [m for m in messages if m["role"] != "system"]
    texts, spoke = [], False
    for index, m in enumerate(said):
        if m["role"] == "user" and not m["observation"] and spoke and m["content"].strip():
            answered = index + 1 < len(said) and said[index + 1]["role"] == "assistant"
            texts.append((" ".join(m["content"].split()), answered))
        spoke = spoke or (m["role"] == "assistant" and not m["observation"])
    return texts


class HarnessTexts:
    """What one file's runs say after the model's first turn, run by run: learnt from the runs read so far."""

    def __init__(self) -> None:
        self.said_in: collections.Counter[str] = collections.Counter()
        self.answered: collections.Counter[str] = collections.Counter()
        self.runs = 0
        self.known_rows = 0  # rows learnt in a first pass: learnt again as they are read, they count once

    def first_pass(self, rows: list[list[list[dict[str, Any]]]]) -> None:
        """Learn the runs of a file's first rows (each row its runs' messages) before any of them is flagged."""
        for runs in rows:
            self.learn(runs)
        self.known_rows = len(rows)

    def learn_row(self, runs: list[list[dict[str, Any]]]) -> None:
        """Learn one row as it is read, unless the first pass learnt it."""
        if self.known_rows:
            self.known_rows -= 1
        else:
            self.learn(runs)

    def learn(self, runs: list[list[dict[str, Any]]]) -> None:
        for messages in runs:
            self.runs += 1
            texts = later_person_texts(messages)
            self.said_in.update({text for text, _ in texts})
            self.answered.update(text for text, answered in texts if answered)

    def fixed(self, text: str) -> bool:
        text = " ".join(text.split())
        said = self.said_in[text]
        return said >= MIN_RUNS and said >= MIN_SHARE * self.runs and not self.answered[text]

    def flag(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``messages`` with the harness's turns flagged as observations: after the model's first turn, a person's
        turn of a fixed notice, and every person's turn after it until the model speaks again."""
        spoke, harness = False, False
        for m in messages:
            if m["role"] == "assistant" and not m["observation"]:
                spoke, harness = True, False
            elif m["role"] == "user" and not m["observation"] and spoke and (harness or self.fixed(m["content"])):
                m["observation"], harness = True, True
        return messages
