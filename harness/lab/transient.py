"""Which errors are passing weather, worth another look inside a wait.

Right after MicroK8s or the controller comes back, calls fail for a while in ways that say
nothing about the model: the API server answers 5xx, the controller refuses connections,
a websocket closes, a ``juju`` command times out. A wait retries those (within a budget);
anything else ends it at once. Classified by duck typing, so neither the kubernetes client
nor libjuju has to be imported to ask.
"""

from __future__ import annotations

# What `juju` prints on stderr while its controller cannot be reached (Juju 2.9 to 3.6).
JUJU_UNREACHABLE = (
    "cannot connect to api",
    "connection refused",
    "connection reset",
    "connection is shut down",
    "no route to host",
    "i/o timeout",
    "context deadline exceeded",
    "unable to connect to",
    "api connection broken",
    "try again",
    "eof",
    "502 bad gateway",
    "503 service unavailable",
    "504 gateway timeout",
    # The port-forward to a MicroK8s controller not up yet: Juju annotates any failure of
    # its k8s proxier so (api/apiclient.go), e.g. "unable to upgrade connection: pod not
    # found", "TLS handshake timeout".
    "starting proxy for api connection",
    "tls handshake timeout",
)

# urllib3's errors for a refused or dropped connection under the kubernetes client.
_URLLIB3_TRANSIENT = frozenset(
    {
        "MaxRetryError",
        "NewConnectionError",
        "ProtocolError",
        "ReadTimeoutError",
        "ConnectTimeoutError",
        "ProxyError",
    }
)

_WEBSOCKET_DROPPED = frozenset(
    {
        "ConnectionClosed",
        "JujuConnectionError",
        "WebSocketConnectionClosedException",
        "WebSocketTimeoutException",
    }
)


def _names(error: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(error).__mro__}


def is_transient(error: BaseException) -> bool:
    """True for errors a node or controller that is still starting gives."""
    if isinstance(error, (ConnectionError, TimeoutError)):
        return True
    names = _names(error)
    if "ProcessTimeout" in names:  # harness.live.process: a command killed at its timeout
        return True
    if "ExecTimeout" in names:  # harness.live.cluster_port: an exec that did not answer
        return True
    if "ApiException" in names:  # kubernetes.client.exceptions.ApiException
        status = getattr(error, "status", None)
        # status 0: the client's own wrapper for a connection that never answered
        return isinstance(status, int) and (status in (0, 429) or status >= 500)
    if names & _URLLIB3_TRANSIENT:
        return True
    # websockets' (libjuju) closed connection; websocket-client's (kubectl exec through the
    # kubernetes client) lost connection or read that timed out (websocket/_socket.py).
    if names & _WEBSOCKET_DROPPED:
        return True
    stderr = getattr(error, "stderr", None)  # JujuCLIError
    if isinstance(stderr, str) and "JujuCLIError" in names:
        text = stderr.lower()
        return any(marker in text for marker in JUJU_UNREACHABLE)
    return False
