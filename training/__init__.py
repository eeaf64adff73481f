"""Training scripts and utilities for Moon River agents."""
