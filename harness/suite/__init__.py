"""The pytest side: options read once, a deployed stack shared by a test module, and
``--require-live``. The plugin itself is ``harness.pytest_plugin`` (its entry point).
"""
