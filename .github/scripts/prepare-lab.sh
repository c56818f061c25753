#!/usr/bin/env bash
# Provision a live runner with concierge: MicroK8s, Juju, a bootstrapped controller.
# Usage: prepare-lab.sh CONFIG.yaml
# CONCIERGE_JUJU_CHANNEL, CONCIERGE_MICROK8S_CHANNEL and CONCIERGE_CHARMCRAFT_CHANNEL pick
# the snap channels (concierge reads them itself and prefers them to the config file).
set -euo pipefail

if [[ $# -ne 1 || ! -f $1 ]]; then
  echo "usage: $0 CONFIG.yaml (an existing concierge config)" >&2
  exit 2
fi
config=$1
for var in CONCIERGE_JUJU_CHANNEL CONCIERGE_MICROK8S_CHANNEL; do
  if [[ -z ${!var:-} ]]; then
    echo "$var is not set: the job must say which channel to install" >&2
    exit 2
  fi
done

sudo snap install concierge --classic
concierge --version
# sudo drops the environment: hand concierge exactly the channel overrides.
sudo --preserve-env=CONCIERGE_JUJU_CHANNEL,CONCIERGE_MICROK8S_CHANNEL,CONCIERGE_CHARMCRAFT_CHANNEL \
  concierge prepare --verbose --config "$config"

# concierge names the controller after the provider; tests use the current controller.
juju switch concierge-microk8s
