"""Our own minimal requirer side of the ``mysql_client`` (data-platform "database") protocol.

What we support, on purpose small:
- the leader writes ``database: <database-name config>`` into our app databag;
- we never write ``requested-secrets``, so providers built on data-platform-libs'
  data_interfaces answer with plain fields in their app databag: ``username``,
  ``password``, ``endpoints`` (``read-only-endpoints``, ``version`` optional);
- if a provider still shares a ``secret-user`` field (a Juju secret URI, Juju 3.x only),
  we read ``username``/``password`` from that secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import ops

REQUEST_FIELD = "database"
SECRET_USER_FIELD = "secret-user"

CredentialsState = Literal["ok", "waiting", "no-relation", "secret-unreadable"]


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str
    endpoints: str
    source: Literal["databag", "secret"]


def request(relation: ops.Relation, app: ops.Application, database_name: str) -> bool:
    """As leader: ask for ``database_name``; True when the databag changed."""
    bag = relation.data[app]
    if bag.get(REQUEST_FIELD) == database_name:
        return False
    bag[REQUEST_FIELD] = database_name
    return True


def credentials(model: ops.Model, relation: ops.Relation) -> Credentials | None:
    """The provider's answer, or None while it has not answered (or cannot be read).

    Raises ops.SecretNotFoundError / ops.ModelError when a shared secret cannot be read.
    """
    if relation.app is None:
        return None
    try:
        bag = dict(relation.data[relation.app])
    except ops.ModelError:
        return None
    endpoints = bag.get("endpoints", "")
    if bag.get("username") and bag.get("password"):
        return Credentials(bag["username"], bag["password"], endpoints, "databag")
    uri = bag.get(SECRET_USER_FIELD)
    if uri:
        content = model.get_secret(id=uri).get_content(refresh=True)
        if content.get("username") and content.get("password"):
            return Credentials(content["username"], content["password"], endpoints, "secret")
    return None


def credentials_state(model: ops.Model, endpoint: str) -> CredentialsState:
    relations = model.relations.get(endpoint, [])
    if not relations:
        return "no-relation"
    try:
        found = [credentials(model, relation) for relation in relations]
    except (ops.SecretNotFoundError, ops.ModelError):
        return "secret-unreadable"
    return "ok" if any(found) else "waiting"
