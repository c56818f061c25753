"""Values and helpers every part of the harness shares; this package imports no other part.

Errors a person acts on, Juju version numbers, the frozen values observers produce and
verdicts consume, findings, redaction, interruption, time stamps and ``logging-config``.
"""
