"""The names and ids the simulated model goes by: the model, its namespace, the node.

The model name says "simulated" wherever a person reads it (status, bundles, logs). Every
id the twin derives (the model's uuid, pod uids) comes from ``TWIN_IDS``, so the same run
gives the same ids, each in the form Juju gives it. The model's uuid is a version-4 uuid,
as Juju makes one (juju/utils uuid.go ``NewUUID``: "Set version (4) and variant (2)";
4.0's internal/uuid the same): cosl's ``JujuTopology``, which most Canonical charms build
in every hook, refuses any other (``str(UUID(text, version=4)) == text``).
"""

from __future__ import annotations

import uuid

MODEL_NAME = "twin-simulated"
NAMESPACE = MODEL_NAME
TWIN_IDS = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/juju-lifecycle-harness/twin")
MODEL_UUID = str(uuid.UUID(bytes=uuid.uuid5(TWIN_IDS, MODEL_NAME).bytes, version=4))
NODE_NAME = "twin-simulated-node"
