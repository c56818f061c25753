"""The live backend: real Juju and Kubernetes, and the parsers for what they print."""
