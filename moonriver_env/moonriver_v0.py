"""Moon River: PettingZoo AEC environment, version 0.

Environment card
================

==================  =======================================================================
Import              ``from moonriver_env import moonriver_v0``
Actions             Discrete (one flat numbering per player count and mode)
Parallel API        No (turn-based; one agent may take several decisions in a row)
Manual control      ``python -m agents.play`` (agents issue)
Agents              ``["player_0", ..., "player_{n-1}"]`` (2, 3 or 4)
Action shape        ``(1,)``
Action values       ``Discrete(num_actions)``: 1748 / 2560 (2p base / Legends),
                    833 / 1253 (3p), 870 / 1298 (4p)
Observation shape   ``dict(observation=(D,), action_mask=(num_actions,))``
Observation values  observation float32 in ``[0, high]``; action_mask int8 in {0, 1}
==================  =======================================================================

Arguments
---------
``moonriver_v0.env(num_players=None, mode=None, scenario=None, boards=None, reward="win",
dense_reward=0.0, obs_type="dict", auto_resolve=None, render_mode=None, config=None)``

* ``num_players``: 2, 3 or 4 (``None``: 2). ``mode``: ``"base"`` (Camp boards, the default)
  or ``"legends"``.
* ``scenario`` (Legends): ``"timber_rafting"``, ``"gold_rush"``, ``"outlaws"``,
  ``"moon_river_city"``, or ``None``/``"random"`` (drawn from the reset seed).
* ``boards`` (Legends): distinct board names per seat, ``None`` (by seat) or ``"random"``.
* ``reward``: ``"win"``, ``"score"`` or ``"score_diff"`` (below); ``dense_reward``: shaping
  coefficient.
* ``obs_type``: ``"dict"`` (the PettingZoo classic dict) or ``"flat"`` (the observation Box
  alone, with the mask in ``infos[agent]["action_mask"]``, for libraries that cannot take dicts).
* ``auto_resolve``: play decisions with exactly one legal action automatically (``None``:
  no).
* ``render_mode``: ``"ansi"``, ``"rgb_array"``, ``"human"`` or ``None``.
* ``config``: a ``GameConfig`` instead of the game arguments (``num_players``, ``mode``,
  ``scenario``, ``boards``, ``auto_resolve``); a game argument that contradicts it raises
  ``ValueError`` naming both.

``env()`` wraps ``raw_env()`` in PettingZoo's standard wrappers (``TerminateIllegalWrapper``,
``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``; subclassed only to read the per-step
attributes straight from the raw env, the same behaviour at a fraction of the cost): an
illegal action ends the game for everyone with reward ``-1`` for the offender and ``0`` for
the others; ``raw_env`` raises the engine's ``IllegalActionError`` naming
the action and the phase, and leaves the game unchanged. Bad arguments raise ``ValueError``
(or ``TypeError``) whose message starts with the argument's name and says what is allowed,
before anything changes (:mod:`moonriver_env.moonriver.args`): also ``reset``'s ``seed`` (``None``
or a non-negative integer) and ``options`` (``None`` or a dict; no key is used: a constructor
argument such as ``{"num_players": 3}`` raises, any other key is ignored with a warning, as
PettingZoo's ``api_test`` expects ``options`` to be taken). ``step`` before ``reset`` raises
``ResetNeeded`` (Gymnasium's error, also a ``RuntimeError``); after the game ends the agents
step ``None`` until all are removed (PettingZoo's protocol: another action raises
``ValueError``); then ``raw_env`` raises ``ResetNeeded`` for any step and ``env()`` for any
action but ``None`` (which PettingZoo answers with a logged warning).

Actions
-------
The engine's flat numbering (``moonriver_env.moonriver.rules.actions``; the segment table is in the
README, section *Action layout*): claim, place (pair x cell x direction), stop, discard, skull,
recruit, cowboy_move, cowboy_stop, desperado_swap, desperado_skip, thief_steal, thief_skip,
and, with 2 players, bonus_place and bonus_remove. ``env.unwrapped.state.action_to_string(a)``
gives the text form (``"place 0+2 b1 N"``). The acting agent's ``action_mask`` equals the
engine's legal set exactly; every other agent's mask is all zero.

Observation
-----------
``observation`` is one float32 vector of size ``D = n * 29 * rows * 5 + F``: the spatial
planes (C-order) then the feature vector, from the observing agent's point of view. Ranch 0
is the agent's own, ranch ``k`` the seat ``k`` places after it (the same ``+k`` as action
targets). ``env.unwrapped.encoder.split_flat(obs)`` returns ``(planes, features)`` views;
``encoder.feature_slices`` names every feature range. Sizes: 2 players D = 3282 (planes
58 x 10 x 5, F = 382); 3 players D = 2604 (87 x 5 x 5, F = 429); 4 players D = 3376
(116 x 5 x 5, F = 476).

Planes, per ranch (channel ``k * 29 + i``):

==  =======================  ==============================================================
i   name                     meaning
==  =======================  ==============================================================
0-5 land_desert .. land_farm landscape one-hot (desert, canyon, meadow, forest, cornfield,
                             farm)
6   empty                    no plot on the cell
7   cows                     cows standing on the cell (count)
8   gold                     gold symbols
9   beaver                   beaver symbols
10  corn                     corn symbols
11  skull                    the plot shows a skull (it acted when placed)
12  circle                   the plot shows a circle
13  partner_desperado_…      partner token one-hot by kind and side up: desperado,
-22 … partner_farmer_cowboy  cattle_thief, gold_digger, trapper, farmer x specialist, cowboy
23  protected                the cell's territory holds a partner (safe from the thief, R16)
24  river                    row 0 (touches the river)
25  bridge                   row-0 cell next to one of this board's bridges
26  bonus_tile               a landscape bonus tile lies there
27  piece                    cells of the piece whose symbols are being resolved
28  skull_target             cells of the territory the pending skull acts on
==  =======================  ==============================================================

Features (offsets for 2 players; ``encoder.feature_slices`` for any config; ``n`` players,
``K = 25`` plot kinds; per-seat blocks are in the same relative order as the ranches):

=====================  ======  ===========================================================
name                   size    meaning
=====================  ======  ===========================================================
phase                  13      one-hot of ``Phase`` (SETUP_CLAIM .. GAME_OVER)
actor                  n       relative seat to act (zero when the game is over)
round                  1       round / 24
final_round            1       the final round is being played
final_turn             1       the acting seat is in its final turn (forced placement)
dominoes_this_turn     1       dominoes placed this turn / 2
held                   n x K   plots each seat holds (reserve + collected), by kind
held_count             n       number of held plots
reserve_slots          n       reserve size / 4
board                  n x 5   board one-hot: camp, mary, wesley, calamity, big_jo
current_column         4x(K+1) plot kind one-hot per position (last = gone/removed)
current_claims         4 x n   relative seat whose ranchero stands there
next_column            4x(K+1) the column being claimed
next_claims            4 x n
saloon                 5 x 5   token kind one-hot per saloon space (empty: zeros)
stack_size             1       tokens left in the face-down stack / 20
cow_supply             1       cows in the supply / 32
unseen_plots           K       plots not yet seen, by kind (counts, never the order)
scores                 n x 5   territories, resources, partners, scenario, total / 100,
                               on the ranches as they stand
pending_skulls         1       skulls of the piece still to resolve
pending_circles        2       circles of the piece still to recruit (first, second plot)
cowboy_moves_left      1       Cowboy moves left / 3 (COWBOY phase)
bonus_tiles_available  2       bonus tiles A, B still available (2 players)
bonus_tile_taken       n       seat has had its bonus tile (2 players)
scenario               5       one-hot: none, timber_rafting, gold_rush, outlaws,
                               moon_river_city
=====================  ======  ===========================================================

Hidden information is never encoded: the order of the draw pile and of the partner stack
(and which specialists remain in it). Two states that differ only there observe identically.

Rewards
-------
Given at the end of the game (plus optional shaping):

* ``"win"`` (default): 2 players +1 / -1, 0 for a shared win. 3-4 players: rank-based and
  zero-sum, ``(opponents beaten - opponents beating you) / (n - 1)``, comparing (total,
  largest territory, cows) as the rulebook's tie-breaks do; a full winner gets +1, a full
  loser -1.
* ``"score"``: the final score. ``"score_diff"``: own final score minus the best opponent's.
* ``dense_reward=c``: in addition, after every action each agent receives ``c`` times the
  change of its score on the table (telescoping to ``c`` x its final score).

Infos
-----
The same keys for every agent on every step, every value a number or a NumPy array of a fixed
shape, so that libraries can batch them (TorchRL turns them into tensors, Tianshou into
buffer columns):

================  ==============  ==========================================================
key               value           meaning
================  ==============  ==========================================================
``phase``         int             the phase code; ``PHASE_NAMES[code]`` (= ``Phase(code)
                                  .name``) names it, e.g. 0 ``SETUP_CLAIM``, 12 ``GAME_OVER``
``score``         int64 (7,)      the agent's own final breakdown, columns
                                  ``SCORE_COLUMNS``: territories, resources, partners,
                                  scenario, total, largest_territory, cows
``scores``        int64 (n, 7)    every seat's final breakdown (row = seat)
``winners``       int8 (n,)       1 for each winning seat (several on a shared win)
``action_mask``   int8 (A,)       ``obs_type="flat"`` only: the legal actions of the agent
                                  to act, all zero for the others and at the end
================  ==============  ==========================================================

``score``, ``scores`` and ``winners`` are zero until the game is over.
``moonriver_env.moonriver.env.win_share(info["winners"], seat)`` gives a seat's share of the win (1,
1/k for a shared win, 0). Arrays given out are never written afterwards (the zeros are
shared by the steps of one game, the end gets new arrays), so infos a caller keeps stay as
they were.

Version history
---------------
* v0 (moonriver-env 0.1.0): initial release. (Speed-ups since, with no change to any
  observation, mask, reward or info: faster ``env()`` wrappers and observation encoder.)
* v0, infos made batchable (observations, masks and rewards unchanged): ``phase``
  is the integer code (was the name); ``score`` / ``scores`` are int64 arrays with columns
  ``SCORE_COLUMNS`` (were dicts) and ``winners`` a 0/1 mask over seats (was a list of agent
  names), all three present from the first step (zeros until the end); in flat mode every
  agent's infos carry ``action_mask`` (PettingZoo's ``TerminateIllegalWrapper`` needs it on
  the final dead steps; ``api_test`` failed before). Argument checks: ``seed``,
  ``options``, non-finite ``dense_reward``, game arguments contradicting ``config``;
  ``ResetNeeded`` for steps before ``reset`` or after the game. ``import moonriver_env``
  registers the single-agent env with Gymnasium as ``MoonRiver-v0``.
"""

from moonriver_env.moonriver.env import PHASE_NAMES, SCORE_COLUMNS, ResetNeeded, env, raw_env

__all__ = ["PHASE_NAMES", "SCORE_COLUMNS", "ResetNeeded", "env", "raw_env"]
