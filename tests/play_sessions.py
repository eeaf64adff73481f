"""Scripted games of the play CLI for the tests: a :class:`PlaySession` whose human answers every
prompt through a test's function of the session."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.play import PlaySession


def first_legal(session: PlaySession) -> str:
    """The first legal action of the session's game, in the words its screen reads."""
    state = session.state
    return session.screen.move_words(state, state.legal_action_list()[0])


def scripted_session(
    answer: Callable[[PlaySession], str], out: list[str] | None = None, **kwargs: Any
) -> PlaySession:
    """A session (``kwargs`` as :class:`PlaySession` takes them) whose every prompt is answered
    with ``answer(session)``; what it prints goes to ``out`` (dropped when ``None``)."""
    session: PlaySession

    def input_fn(prompt: str) -> str:
        return answer(session)

    write = (lambda text: None) if out is None else out.append
    session = PlaySession(input_fn=input_fn, output_fn=write, **kwargs)
    return session
