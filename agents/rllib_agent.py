"""The ``rllib:RUN_DIR`` agent: the learner of an RLlib run (``python -m training.rllib_train``)
playing from its checkpoint.

A run directory holds ``config.toml`` (the validated config: ``[env]`` names the game) and
``checkpoints/iter_<N>/``, RLlib algorithm checkpoints, each finished one with
:data:`CHECKPOINT_META` (iteration, env steps, wall time) written inside before it was renamed
into place; this module is the one home of that layout (the trainer imports it). The agent loads
the learner's ``RLModule`` (:data:`MODULE_PATH` inside the checkpoint) with
``RLModule.from_checkpoint``: plain torch inference, no Ray cluster. Spec options (after the
path, comma-separated): ``sample=true`` draws moves from the masked policy (default: the most
likely legal move), ``checkpoint=iter_<N>`` picks a checkpoint (default: the latest),
``trust=1`` opts in to reading it: RLlib unpickles files of the checkpoint
(``class_and_ctor_args.pkl``), which runs any code their author put there, so a checkpoint is
read only with ``trust=1`` or ``MOONRIVER_TRUST_FILES=1``
(:func:`agents.networks.snapshots.check_trust`; else ``UntrustedFileError``).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from moonriver_env.games import GameSpec
from moonriver_env.opponents import LEARNER

from .base import PolicyAgent, describe_game
from .networks.snapshots import check_trust

CHECKPOINT_DIR = "checkpoints"
CHECKPOINT_META = "moonriver.json"
MODULE_PATH = Path("learner_group", "learner", "rl_module", LEARNER)
OLD_MODULE_PATH = MODULE_PATH.with_name("main")
"""Where runs made before the learner's module id was ``"learner"`` keep it."""
RUN_CONFIG = "config.toml"
_CKPT_RE = re.compile(r"iter_(\d+)$")


def checkpoint_name(iteration: int) -> str:
    """``iter_000012``: the folder of the checkpoint after ``iteration`` iterations."""
    return f"iter_{iteration:06d}"


def list_checkpoints(run_dir: str | Path) -> list[Path]:
    """The finished checkpoints of a run (with :data:`CHECKPOINT_META`), oldest first."""
    root = Path(run_dir) / CHECKPOINT_DIR
    if not root.is_dir():
        return []
    found = [
        (int(m.group(1)), p)
        for p in root.iterdir()
        if (m := _CKPT_RE.match(p.name)) and (p / CHECKPOINT_META).is_file()
    ]
    return [p for _, p in sorted(found)]


def read_meta(checkpoint: Path) -> dict[str, Any]:
    """A checkpoint's :data:`CHECKPOINT_META` (iteration, env_steps, wall_time)."""
    return dict(json.loads((checkpoint / CHECKPOINT_META).read_text()))


def run_game(run_dir: str | Path) -> Any:
    """The game a run trained for (its ``config.toml``'s ``[env]``)."""
    path = Path(run_dir) / RUN_CONFIG
    try:
        env = tomllib.loads(path.read_text())["env"]
    except (OSError, KeyError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"rllib: {path} is not an RLlib run's config ({e})") from None
    return GameSpec.from_section(env).config()


def load_module(checkpoint: str | Path, trust: bool = False) -> Any:
    """The learner's ``RLModule`` of an algorithm checkpoint, for inference (eval mode); RLlib
    unpickles the checkpoint's files, so only with ``trust`` (:func:`check_trust`)."""
    check_trust(f"the RLlib checkpoint {str(checkpoint)!r}", trust)
    from ray.rllib.core.rl_module.rl_module import RLModule

    # absolute: RLlib reads a relative path as a URI without a scheme and refuses it
    path = Path(checkpoint) / MODULE_PATH
    if not path.exists() and (Path(checkpoint) / OLD_MODULE_PATH).exists():
        path = Path(checkpoint) / OLD_MODULE_PATH
    module = RLModule.from_checkpoint(str(path.resolve()))
    module.eval()  # type: ignore[attr-defined]
    return module


def rllib_params(spec: str, rest: str) -> dict[str, Any]:
    """``DIR[,sample=true][,checkpoint=iter_<N>][,trust=1]`` -> ``{"run_dir", "sample",
    "checkpoint", "trust"}`` (``trust``: the opt-in to a checkpoint RLlib unpickles)."""
    path, *items = [p.strip() for p in rest.split(",")]
    if not path:
        raise ValueError(f"spec: expected rllib:RUN_DIR, got {spec!r}")
    params: dict[str, Any] = {"run_dir": path}
    for item in items:
        key, eq, text = (p.strip() for p in item.partition("="))
        if not eq or key not in ("sample", "checkpoint", "trust") or key in params:
            raise ValueError(
                f"{key or item}: not a parameter of agent 'rllib' (parameters: sample, "
                f"checkpoint, trust), or given twice, in {spec!r}"
            )
        if key in ("sample", "trust"):
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"{key}: expected true or false for agent 'rllib', got {text!r}")
            params[key] = text.lower() in ("true", "1")
        else:
            params[key] = text
    return params


class ModulePolicy:
    """A masked RLlib module as a policy ``(observation, env) -> action``: the most likely legal
    action, or one drawn from the masked distribution with ``rng``."""

    def __init__(self, module: Any, sample: bool = False) -> None:
        self.module = module
        self.sample = sample
        self.rng = np.random.default_rng()

    def __call__(self, observation: dict[str, Any], env: Any = None) -> int:
        import torch

        mask = np.asarray(observation["action_mask"], dtype=np.float32)
        obs = np.asarray(observation["observation"], dtype=np.float32)
        batch = {
            "obs": {
                "observations": torch.from_numpy(obs)[None],
                "action_mask": torch.from_numpy(mask)[None],
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        legal = np.flatnonzero(mask)
        if not self.sample or legal.size == 1:
            return int(legal[int(np.argmax(logits[legal]))])
        z = logits[legal].astype(np.float64)
        p = np.exp(z - z.max())
        return int(self.rng.choice(legal, p=p / p.sum()))


class RLlibAgent(PolicyAgent):
    """The learner of the RLlib run in ``run_dir`` (module docstring)."""

    name = "rllib"

    def __init__(
        self,
        run_dir: str | Path,
        seed: int | None = None,
        sample: bool = False,
        checkpoint: str | None = None,
        trust: bool = False,
    ) -> None:
        run = Path(run_dir)
        found = list_checkpoints(run)
        if checkpoint:
            found = [p for p in found if p.name == checkpoint]
        if not found:
            what = f"checkpoint {checkpoint!r}" if checkpoint else "finished checkpoint"
            raise ValueError(f"rllib: no {what} in {run / CHECKPOINT_DIR}")
        self.run_dir = run
        self.checkpoint = found[-1]
        self.game = run_game(run)
        self.module_policy = ModulePolicy(load_module(self.checkpoint, trust), sample)
        super().__init__(self.module_policy, seed=seed, deterministic=not sample, name="rllib")
        self.module_policy.rng = self.rng

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.module_policy.rng = self.rng

    def check_game(self, config: Any) -> None:
        """``ValueError`` naming both games unless ``config`` is the run's game."""
        asked = (type(config), config.num_players, config.mode)
        if asked != (type(self.game), self.game.num_players, self.game.mode):
            raise ValueError(
                f"agent 'rllib:{self.run_dir}': the game is {describe_game(config)} but the run "
                f"trained for {describe_game(self.game)}"
            )

    def __repr__(self) -> str:
        return f"RLlibAgent({str(self.checkpoint)!r}, seed={self.seed!r})"
