"""The tests are in folders by package (``tests/rules``, ``tests/env``, ``tests/agents``,
``tests/training``, ``tests/project``); the helpers they share (``positions``, ``rule_cases``,
``saved_states``, ``play_sessions``, ``random_play_*``, ``fresh_python``, ``env_loops``,
``collected_tests``) stay here, importable by name from every folder."""

from __future__ import annotations

import sys
from pathlib import Path

HELPERS = str(Path(__file__).resolve().parent)
if HELPERS not in sys.path:
    sys.path.insert(0, HELPERS)
