"""The names and ids the simulated model goes by: the model, its namespace, the node.

The model name says "simulated" wherever a person reads it (status, bundles, logs). Every
id the twin derives (the model's uuid, pod uids) comes from ``TWIN_IDS``, so the same run
gives the same ids.
"""

from __future__ import annotations

import uuid

MODEL_NAME = "twin-simulated"
NAMESPACE = MODEL_NAME
TWIN_IDS = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/juju-lifecycle-harness/twin")
MODEL_UUID = str(uuid.uuid5(TWIN_IDS, MODEL_NAME))
NODE_NAME = "twin-simulated-node"
