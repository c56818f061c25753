"""``repro``: the command line, one module per command.

Kept empty: ``harness.cli.entry`` imports this package before it can catch a Ctrl-C.
"""
