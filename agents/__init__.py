"""Baseline and search agents for Moon River."""
