"""Pure readers: turn what a backend reports into the frozen values of
harness.common.observations, and settle: when a model is settled, on that evidence.
"""
