"""Kingdomino on the native core: batched games and one game for search."""
