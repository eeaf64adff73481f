"""Placeholder; replaced below."""

SCHEMA_VERSION = 1


class StateFormatError(ValueError):
    pass
