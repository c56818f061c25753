#!/usr/bin/env bash
# Download the newest live evidence of the integration workflow on main, for the lifecycle
# reference: the newest finished scheduled run that uploaded evidence bundles (the full
# matrix), and every dispatched run that finished after it (one bug reporter's versions).
# `repro reference` keeps the newest run of each scenario on each (Juju, MicroK8s) pair.
#
# Usage: fetch-live-evidence.sh OUT_DIR    (needs gh, GH_TOKEN with actions: read, and
# GITHUB_REPOSITORY). Never fails for want of evidence: what it found, or why it found
# nothing, goes to OUT_DIR/SOURCES.txt and to the job summary.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
out=$1
repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
mkdir -p "$out"
sources="$out/SOURCES.txt"
: >"$sources"

note() {
  echo "$1" | tee -a "$sources" >>"$summary"
}

bundles_in() {
  find "$1" -type f -name bundle.json 2>/dev/null | wc -l
}

# Newest first: "<id> <event> <created>", one finished run of integration.yaml on main a line.
if ! runs=$(gh run list --repo "$repo" --workflow integration.yaml --branch main \
  --status completed --limit 50 --json databaseId,event,createdAt \
  --jq '.[] | "\(.databaseId) \(.event) \(.createdAt)"'); then
  note "No live evidence: the integration workflow's runs could not be listed."
  exit 0
fi

# $1: run id. Downloads its evidence-live-* artifacts; prints how many bundles it held.
fetch() {
  local dir="$out/run-$1"
  if ! gh run download "$1" --repo "$repo" --pattern 'evidence-live-*' --dir "$dir" \
    >/dev/null 2>&1; then
    rm -rf "$dir" # no such artifact, or it expired
    echo 0
    return
  fi
  bundles_in "$dir"
}

base_created=""
while read -r id event created; do
  [[ -n $id && $event == schedule ]] || continue
  count=$(fetch "$id")
  if [[ $count -gt 0 ]]; then
    note "Run $id (scheduled, $created): $count live evidence bundles."
    base_created=$created
    break
  fi
done <<<"$runs"

while read -r id event created; do
  [[ -n $id && $event == workflow_dispatch ]] || continue
  [[ -z $base_created || $created > "$base_created" ]] || continue
  count=$(fetch "$id")
  if [[ $count -gt 0 ]]; then
    note "Run $id (dispatched, $created): $count live evidence bundles."
  fi
done <<<"$runs"

if [[ $(bundles_in "$out") -eq 0 ]]; then
  note "No live evidence: no finished integration run on main has evidence bundles left."
fi
