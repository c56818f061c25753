"""The lab: the ports a run drives (Juju, the cluster, the node), and waiting on them.

Both backends, ``harness.live`` and ``harness.twin``, implement these ports; everything
above them (observers, disruptions, settle, runs) talks only to a ``Lab``.
"""
