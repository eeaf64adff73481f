"""``python -m training.az.bench``: the az pipeline's self-play throughput at the shipped
settings (``training/configs/az_default.toml``, or ``--config``), learning included, on this
machine's cores: iterations of the pipeline's own loop (games played in the core over
``selfplay.threads`` threads and the gradient steps ``train.sample_reuse`` asks for: with
``[train] overlap``, the default, an iteration's positions learn while the next one plays) for
about ``--seconds``, then::

    self-play: N games/hour

and where the time goes (play and learning seconds, network evaluations a second, decisions
a second). ``--set env.game=kingdomino`` (and the other keys of the config) choose the game.
"""

from __future__ import annotations

import argparse
import functools
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from agents.az.network import AzNet
from training.common.config import ConfigError

from .config import game_spec, load_az_config, selfplay_play_settings, selfplay_settings
from .learner import loss_weights, optimizer_for, overlapped, steps_for, stop_check, train_steps
from .replay import ReplayBuffer
from .selfplay import native_template, play_threads


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.az.bench", description=__doc__)
    parser.add_argument("--config", default=None, help="a TOML config (over az_default.toml)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--seconds", type=float, default=90.0, help="about how long to measure")
    args = parser.parse_args(argv)
    if not 1.0 <= args.seconds <= 3600.0:
        parser.error("--seconds: expected 1 to 3600")
    try:
        cfg = load_az_config(args.config, args.set)
    except ConfigError as exc:
        parser.error(str(exc))
    from .run import net_shape

    spec = game_spec(cfg)
    sp, tr = cfg["selfplay"], cfg["train"]
    torch.set_num_threads(cfg["run"]["torch_threads"])
    torch.manual_seed(0)
    net = AzNet(net_shape(cfg)).eval()
    opt = optimizer_for(net, cfg)
    buffer = ReplayBuffer(cfg["replay"]["window"])
    settings = selfplay_play_settings(cfg)
    template = native_template(spec)
    games = min(sp["games"], 64)  # short iterations: several fit the time asked for
    print(
        f"az self-play benchmark: {spec}, {sp['threads']} play threads, "
        f"{cfg['run']['torch_threads']} torch threads, {os.cpu_count()} cores; search "
        f"{selfplay_settings(cfg)}; {games} games an iteration, about {args.seconds:.0f} s",
        flush=True,
    )
    played = decisions = evals = positions = 0
    t_play = t_learn = wall = 0.0
    overlap = bool(tr["overlap"])
    pending = 0  # positions of the last iteration not yet learned (with overlap)
    start = time.perf_counter()
    seed = 1

    def learn(n: int, rng_seed: int, on_step: Any = None) -> None:
        steps = steps_for(n, tr["sample_reuse"], tr["batch_size"])
        train_steps(
            net, opt, buffer, steps, tr["batch_size"], np.random.default_rng(rng_seed),
            loss_weights(cfg), on_step=on_step,
        )  # fmt: skip

    def learn_pending(n: int, rng_seed: int, stop: threading.Event) -> None:
        learn(n, rng_seed, stop_check(stop))

    while time.perf_counter() - start < args.seconds:
        t0 = time.perf_counter()
        seeds = list(range(seed, seed + games))
        seed += games
        weights = net.native()
        if overlap:  # the pipeline's way: the last iteration's positions learn while these play
            p, _, dt_play, dt_learn = overlapped(
                functools.partial(play_threads, template, weights, seeds, settings, sp["threads"]),
                functools.partial(learn_pending, pending, seed) if pending else None,
            )
            buffer.add(p)
            pending = len(p)
        else:
            p = play_threads(template, weights, seeds, settings, sp["threads"])
            dt_play = time.perf_counter() - t0
            buffer.add(p)
            learn(len(p), seed)
            dt_learn = time.perf_counter() - t0 - dt_play
        wall += time.perf_counter() - t0
        t_play += dt_play
        t_learn += dt_learn
        played += p.games
        decisions += p.decisions
        evals += p.evals
        positions += len(p)
    if pending:  # the last iteration's learning counts too
        t0 = time.perf_counter()
        learn(pending, seed)
        t_learn += time.perf_counter() - t0
        wall += time.perf_counter() - t0
    way = "learning beside the play" if overlap else "play, then learning"
    print(f"self-play: {played * 3600 / wall:,.0f} games/hour", flush=True)
    print(
        f"  {played} games, {decisions:,} decisions, {positions:,} positions kept in {wall:.1f} s "
        f"({way}, [train] overlap = {str(overlap).lower()}): play {t_play:.1f} s, learning "
        f"{t_learn:.1f} s\n"
        f"  play: {decisions / t_play:,.0f} decisions/s, {evals / t_play:,.0f} network "
        f"evaluations/s over {sp['threads']} threads ({evals / max(decisions, 1):.1f} a decision, "
        f"{1e6 * t_play * sp['threads'] / max(evals, 1):.1f} us each on one thread)",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
