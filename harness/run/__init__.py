"""One run end to end: deploy the stack, snapshot, disrupt, settle, snapshot, judge, write.

Shared by ``repro run`` and the pytest plugin.
"""
