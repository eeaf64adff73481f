"""Moon River's observation encoder at its public path (thin re-export of
:mod:`moonriver_env.moonriver.encoding`)."""

from moonriver_env.moonriver.encoding import (
    BOARD_NAMES,
    RANCH_CHANNEL_NAMES,
    RANCH_CHANNELS,
    SCORE_PARTS,
    SCORE_SCALE,
    ObservationEncoder,
)

__all__ = [
    "BOARD_NAMES",
    "RANCH_CHANNELS",
    "RANCH_CHANNEL_NAMES",
    "SCORE_PARTS",
    "SCORE_SCALE",
    "ObservationEncoder",
]
