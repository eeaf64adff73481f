"""Play in the browser: ``python -m agents.serve`` (``make play``) serves a page at
``http://127.0.0.1:8000`` where a game of any registered game, at any table, is played by
clicking against agents (``az`` by default where the table has a model) or between humans.

- **Setup**: the game, the players, the mode, and per seat ``human`` or an agent spec.
- **Moves**: the human's legal moves come from the engine's list (the action mask); the
  places a move's words are clicked are highlighted on the board (:mod:`.boards`), and the
  words are buttons too. A move of several words (``place 0+1 b1 N``) is clicked word by word.
- **The computer's turn**: its moves come one at a time with its think time, and for ``az``
  the candidates its search weighed (share of the search and value).
- **During the game**: the pictures of the table and every seat's score by category, live;
  only what every seat may see. **Undo** takes back the humans' last move while nothing was
  revealed since. **Save** and **Load** use the saved-game format of ``agents.play``
  (:mod:`agents.saved_game`), in the save folder only; a finished game is saved there
  atomically before the last move is answered. At the end: a link to the replay page.

The server is Starlette on uvicorn (the ``serve`` extra): :mod:`.app` (HTTP, sessions, errors),
:mod:`.session` (one browser's game), ``static/`` (the page: HTML, CSS and JavaScript, no
library, nothing fetched from the network). It binds ``127.0.0.1`` unless ``--host`` says
otherwise.
"""
