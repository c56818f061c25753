"""A reproduction harness for Juju charm lifecycle bugs on Kubernetes (MicroK8s).

A scenario deploys a stack, snapshots it, applies a disruption, waits until the model
settles, snapshots again and hands both to the verdict, which writes the evidence.
"""
