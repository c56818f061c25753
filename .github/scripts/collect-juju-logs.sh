#!/usr/bin/env bash
# Best-effort diagnostics after a live run, for the logs artifact: controller and model
# status, `juju debug-log --replay`, each probe unit's journal (through its `journal` action)
# and databags, and the Kubernetes view. It never fails the job: a collector that breaks must
# not hide the test result. What could not be collected is listed in collection-failures.txt.
# Usage: collect-juju-logs.sh OUTDIR
set -uo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
out=$1
mkdir -p "$out"
failures=$out/collection-failures.txt
: >"$failures"

# collect FILE COMMAND...: save COMMAND's output as OUTDIR/FILE, bounded in time so a hung
# controller (e.g. after a node restart) cannot eat the job's timeout.
collect() {
  local file=$1
  shift
  mkdir -p "$(dirname "$out/$file")"
  if ! timeout 300 "$@" >"$out/$file" 2>&1; then
    printf '%s: "%s" failed or timed out\n' "$file" "$*" >>"$failures"
  fi
}

collect juju-version.txt juju version
collect juju-controllers.txt juju controllers
collect juju-models.txt juju models
collect snap-list.txt snap list
collect microk8s-status.txt sudo microk8s status
collect kubectl-pods.txt kubectl get pods --all-namespaces -o wide
collect kubectl-events.txt kubectl get events --all-namespaces --sort-by=.lastTimestamp

# "2.9.49-ubuntu-amd64" -> 2: Juju 2.9 runs actions with `run-action`, 3.x with `run`.
juju_major=$(juju version 2>/dev/null | cut -d. -f1)

models=()
mapfile -t models < <(
  juju models --format json 2>/dev/null |
    jq -r '.models[] | (."short-name" // .name)' 2>/dev/null
)
for model in "${models[@]}"; do
  collect "$model/status.txt" juju status --model "$model" --relations
  collect "$model/status.json" juju status --model "$model" --format json
  collect "$model/debug-log.txt" juju debug-log --model "$model" --replay --no-tail
  if [[ $model == controller ]]; then
    continue
  fi
  units=()
  mapfile -t units < <(
    jq -r '.applications // {} | to_entries[]
      | select(.key == "probe" or .key == "probe-peer")
      | .value.units // {} | keys[]' "$out/$model/status.json" 2>/dev/null
  )
  for unit in "${units[@]}"; do
    name=${unit//\//-}
    collect "$model/$name-show-unit.yaml" juju show-unit --model "$model" "$unit"
    if [[ $juju_major == 2 ]]; then
      collect "$model/$name-journal.yaml" \
        juju run-action --model "$model" "$unit" journal --wait=4m --format yaml
    else
      collect "$model/$name-journal.yaml" \
        juju run --model "$model" "$unit" journal --format yaml
    fi
  done
done

if [[ -s $failures ]]; then
  echo "Some diagnostics could not be collected:"
  cat "$failures"
fi
exit 0
