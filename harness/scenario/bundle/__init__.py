"""A Juju bundle file, read the way ``juju deploy`` reads it, as frozen values."""
