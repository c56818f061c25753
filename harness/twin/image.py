"""What a container's image holds: it is there again after every (re)start of the container.

A real container restarts from its image: ``/tmp``, ``/etc``, ``/var/lib/<app>`` exist,
what the charm or the workload wrote since the last start does not. The twin lays an
``Image`` down as each container's fresh root filesystem. Charm authors declare the image
of each workload container (directories and files); by default it is ``LINUX``, the
usual directories of a Linux base image.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from harness.common.errors import HarnessError
from harness.twin.layer_paths import in_layer

# The top-level directories of an Ubuntu or Debian base image, and the few below them
# that charms write into without creating them first.
LINUX_DIRECTORIES: tuple[str, ...] = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/media",
    "/mnt",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/tmp",
    "/usr",
    "/usr/bin",
    "/usr/lib",
    "/usr/local",
    "/usr/local/bin",
    "/usr/share",
    "/var",
    "/var/cache",
    "/var/lib",
    "/var/log",
    "/var/tmp",
)


@dataclass(frozen=True, eq=False)
class Image:
    """A container image's filesystem: directories, and files with their content.

    ``Image.linux(directories=("/etc/mysqlrouter",), files={"/etc/os-release": "..."})``
    is a Linux base image plus what the workload's package installs.
    """

    directories: tuple[str, ...] = LINUX_DIRECTORIES
    files: Mapping[str, str | bytes] = field(default_factory=dict)

    @classmethod
    def linux(
        cls,
        directories: tuple[str, ...] | list[str] = (),
        files: Mapping[str, str | bytes] | None = None,
    ) -> Image:
        """The usual Linux directories, plus these directories and files."""
        return cls((*LINUX_DIRECTORIES, *directories), dict(files or {}))

    def __post_init__(self) -> None:
        for path in (*self.directories, *self.files):
            if not str(path).startswith("/") or ".." in PurePosixPath(path).parts:
                raise HarnessError(
                    f"image path {path!r} is not an absolute path inside the container",
                    "give paths such as /etc/myapp",
                )

    def lay_down(self, root: Path) -> None:
        """Fill an empty root layer with the image's content."""
        for directory in self.directories:
            in_layer(root, directory).mkdir(parents=True, exist_ok=True)
        for path, content in self.files.items():
            target = in_layer(root, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)


LINUX = Image()


def image_for(images: Mapping[str, Image] | None, container: str) -> Image:
    """The image declared for a container, else the Linux default."""
    return (images or {}).get(container, LINUX)


def check_images(images: Mapping[str, Image] | None, containers: list[str]) -> None:
    """One line naming the containers that exist when an image names another."""
    unknown = sorted(set(images or {}) - set(containers))
    if unknown:
        raise HarnessError(
            f"images given for {', '.join(unknown)}, which the charm has no container for",
            f"use one of: {', '.join(containers) or 'none (the charm has no containers)'}",
        )
