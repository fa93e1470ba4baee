"""Usernames in a thread: replaced in authors, mentions and bare words, never inside other words."""

from __future__ import annotations

from codemix.filters.issues import Usernames


def test_logins_are_replaced_as_authors_mentions_and_bare_words() -> None:
    names = Usernames()
    assert [names.of({"login": "zhighleggett"}), names.of({"login": "EnricoMi"}), names.of({"login": "ab"})] == [
        "username_0", "username_1", "username_2"]
    # As in PyGithub issue 3011's traceback and its reply.
    text = 'File "C:\\Users\\zhighleggett\\AppData" @EnricoMi thanks, enricomi! @ab cab abc zhighleggett2'
    assert names.scrub(text) == ('File "C:\\Users\\username_0\\AppData" @username_1 thanks, username_1! @username_2 '
                                 "cab abc zhighleggett2")
