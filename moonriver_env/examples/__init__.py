"""Runnable examples of Moon River in other RL libraries (README, "Using it from other
libraries"). Each module has a ``main(argv)`` that plays ``--steps`` steps through the library
``--runs`` times and prints the median steps/s; each imports its library only inside
``main``, after the arguments are read. The test suite runs them on a tiny budget
(``tests/env/test_integrations.py``).
"""
