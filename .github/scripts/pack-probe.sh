#!/usr/bin/env bash
# Pack a probe charm (charms/probe, or CHARM_DIR: charms/podspec-probe) with charmcraft
# inside LXD, as Canonical's charm CI does, and move the result to OUT.
# Usage: pack-probe.sh OUT.charm [CHARM_DIR]
# CHARMCRAFT_CHANNEL picks the snap channel; CHARMCRAFT_MAJOR, when set, is the major it must
# hold (the one `tox -e lint` validates charmcraft.yaml with): a channel that moved on fails
# here, with both versions named, rather than packing with an unchecked charmcraft.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 OUT.charm [CHARM_DIR]" >&2
  exit 2
fi
out=$1
channel=${CHARMCRAFT_CHANNEL:-latest/stable}
charm_dir=${2:-charms/probe}
if [[ ! -f $charm_dir/charmcraft.yaml ]]; then
  echo "no charmcraft.yaml in $charm_dir: pass a charm's folder, e.g. charms/podspec-probe" >&2
  exit 2
fi

# The runner's shell predates our addition to the lxd group and `newgrp` cannot be used in a
# non-interactive step: a fresh login through sudo picks the new group up.
as_user() {
  sudo --user "$USER" --preserve-env --preserve-env=PATH -- env -- "$@"
}

sudo snap install lxd
sudo adduser "$USER" lxd
as_user lxd waitready
as_user lxd init --auto
# Docker on the runner drops forwarded traffic, which cuts LXD containers off the network.
sudo iptables -F FORWARD
sudo iptables -P FORWARD ACCEPT

sudo snap install charmcraft --classic --channel="$channel"
version=$(charmcraft version)
echo "$version"
if [[ -n ${CHARMCRAFT_MAJOR:-} && ${version#charmcraft } != "$CHARMCRAFT_MAJOR".* ]]; then
  echo "charmcraft from $channel is '$version', not major $CHARMCRAFT_MAJOR as lint checks:" \
    "set CHARMCRAFT_CHANNEL to a $CHARMCRAFT_MAJOR.x channel or move the lint pin" >&2
  exit 1
fi
(cd "$charm_dir" && as_user charmcraft pack --verbose)

shopt -s nullglob
packed=("$charm_dir"/*.charm)
if [[ ${#packed[@]} -ne 1 ]]; then
  echo "expected one .charm in $charm_dir after packing, found ${#packed[@]}: ${packed[*]}" >&2
  exit 1
fi
mkdir -p "$(dirname "$out")"
mv "${packed[0]}" "$out"
echo "packed $out"
