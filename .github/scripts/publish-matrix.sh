#!/usr/bin/env bash
# Build the lifecycle matrix from every live job's evidence bundles with `repro matrix` and
# publish it to the run summary. Usage: publish-matrix.sh BUNDLES_DIR OUT.md [TITLE]
# (TITLE: the summary's heading, by default the live lifecycle matrix's).
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 BUNDLES_DIR OUT.md [TITLE]" >&2
  exit 2
fi
bundles_dir=$1
out=$2
title=${3:-}
summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}

# One argument per bundle folder (the folder holding bundle.json), whatever artifact it
# arrived in.
bundles=()
if [[ -d $bundles_dir ]]; then
  mapfile -t bundles < <(find "$bundles_dir" -type f -name bundle.json -printf '%h\n' | LC_ALL=C sort)
fi

mkdir -p "$(dirname "$out")"
if [[ ${#bundles[@]} -eq 0 ]]; then
  echo "No live evidence bundle was uploaded by any matrix job; see the integration jobs." |
    tee "$out" >>"$summary"
  exit 0
fi

repro matrix "${bundles[@]}" >"$out"
{
  if [[ -n $title ]]; then
    printf '## %s (%d bundles)\n\n' "$title" "${#bundles[@]}"
  else
    printf '## Lifecycle matrix (live MicroK8s, %d bundles)\n\n' "${#bundles[@]}"
  fi
  cat "$out"
  printf '\n'
} >>"$summary"
