"""The two reports that started the project, in their own words, for the seed bug pages.

Each quote is copied verbatim from the bug's Launchpad thread as the project keeps it
(``tests/data/seeds/``, which names the source; a unit test checks every quote is there
character for character), with the speaker as the thread names them. What the catalogue
says now comes from the catalogue itself (``Catalogue.bugs``), never from here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Quote:
    speaker: str  # as the thread names them
    text: str  # verbatim


@dataclass(frozen=True)
class SeedBug:
    number: str  # Launchpad's
    title: str
    reported_on: tuple[str, ...]  # the Juju versions the report names
    quotes: tuple[Quote, ...]
    seed_file: str  # the thread as the project keeps it, in tests/data/seeds/

    @property
    def catalogue_id(self) -> str:
        return f"LP#{self.number}"

    @property
    def url(self) -> str:
        return f"https://bugs.launchpad.net/juju/+bug/{self.number}"

    @property
    def page(self) -> str:
        return f"bug-{self.number}.html"


SEEDS: tuple[SeedBug, ...] = (
    SeedBug(
        number="2021891",
        title="Inconsistent events on pod restart",
        reported_on=("2.9.43", "3.2"),
        seed_file="lp2021891.txt",
        quotes=(
            Quote(
                "Carl Csaposs",
                (
                    "If a pod is deleted with `kubectl delete pod`, these events are fired: "
                    "stop -> upgrade-charm -> config-changed -> start (consistent with "
                    "https://juju.is/docs/sdk/start-event#heading--emission-sequence)\n"
                    "\n"
                    "If a pod is deleted with `sudo microk8s stop` and `sudo microk8s "
                    "start`, these events are fired: start\n"
                    "\n"
                    "Expected behavior:\n"
                    "`upgrade-charm` is not fired when a pod is deleted with `kubectl delete "
                    "pod` (or `upgrade-charm` is fired after `sudo microk8s stop` and `sudo "
                    "microk8s start)"
                ),
            ),
            Quote(
                "Carl Csaposs",
                (
                    "Versions:\n"
                    "MicroK8s v1.26.4 revision 5219 from snap channel 1.26/stable\n"
                    "Juju 2.9.43-ubuntu-amd64 from snap channel 2.9/edge\n"
                    "\n"
                    "Also reproduced on MicroK8s v1.26.4 revision 5222 from snap channel "
                    "1.26-strict/stable and Juju 3.2-beta3-genericlinux-amd64 from snap "
                    "channel 3.2/beta"
                ),
            ),
            Quote(
                "Carl Csaposs (carlcsaposs)",
                (
                    "10. kubectl -n foo exec mysql-router-k8s-0 --container mysql-router -- "
                    "ls /etc/mysqlrouter # No files exist\n"
                    "11. kubectl -n foo describe pod mysql-router-k8s-0 # Container restart "
                    "count is 1, state start time is newer, last state is terminated"
                ),
            ),
            Quote(
                "Ian Booth (wallyworld)",
                (
                    "Charm hooks are supposed to be idempotent - the same hook can be run "
                    "multiple times and the charm should do the right thing."
                ),
            ),
            Quote(
                "Ian Booth (wallyworld)",
                (
                    "upgrade-charm runs because the pod is deleted via kubectl and juju "
                    "tracks that and when the replacement pod is started and the local "
                    "container filesystem is empty, the unit agent's knowledge of the charm "
                    "it is running is gone\n"
                    "\n"
                    "a cluster restart does not result in pod deletion from the statefulset "
                    "so it is treated differently"
                ),
            ),
        ),
    ),
    SeedBug(
        number="1830745",
        title="pod-spec-set destroys relation data",
        reported_on=(),
        seed_file="lp1830745.txt",
        quotes=(
            Quote(
                "Stuart Bishop",
                (
                    "pod-spec-set will cause a new pod to be spun up and a new unit to be "
                    "created, and the old pod and unit to be torn down. A side effect of "
                    "this is that all relation data is also lost."
                ),
            ),
            Quote(
                "Stuart Bishop",
                (
                    "Ideally, a new unit is not created and the existing relation data "
                    "preserved. Only the pod would change, and relations updated with new IP "
                    "network data."
                ),
            ),
            Quote(
                "Ian Booth (wallyworld)",
                (
                    "Juju is supposed to retain relation data for unit/pods managed by a "
                    "StatefulSet, and it mostly does.\n"
                    "The root cause here appears to be a race condition where Juju polls the "
                    "k8s cluster and gets 0 pods reported running as a result of a scale "
                    "change. This causes Juju to delete the unit(s) in state and so when the "
                    "pods are reported as running a short time later, a new unit is created "
                    "and relation data is reset. There's a simple fix on the Juju side to "
                    "account for this issue."
                ),
            ),
            Quote(
                "Yang Kelvin Liu (kelvin.liu)",
                (
                    "https://github.com/juju/juju/pull/10270 will be released in 2.6.4 to "
                    "fix this issue"
                ),
            ),
        ),
    ),
)
