#!/usr/bin/env bash
# Append every report.md under an evidence folder to the GitHub job summary, one collapsible
# block per scenario. Usage: append-reports.sh EVIDENCE_DIR TITLE
# Without GITHUB_STEP_SUMMARY (a local run) it prints to stdout.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 EVIDENCE_DIR TITLE" >&2
  exit 2
fi
evidence_dir=${1%/}
title=$2
summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
# GitHub refuses a step summary over 1 MiB; stay under it and point at the artifact instead.
budget=${SUMMARY_BUDGET_BYTES:-$((900 * 1024))}

reports=()
if [[ -d $evidence_dir ]]; then
  mapfile -t reports < <(find "$evidence_dir" -type f -name report.md | LC_ALL=C sort)
fi

{
  printf '## %s\n\n' "$title"
  if [[ ${#reports[@]} -eq 0 ]]; then
    # Backticks are Markdown code spans here, not command substitution.
    # shellcheck disable=SC2016
    printf 'No evidence bundle was written under `%s`; the job log says why.\n\n' "$evidence_dir"
  fi
} >>"$summary"

written=0
for index in "${!reports[@]}"; do
  report=${reports[$index]}
  size=$(wc -c <"$report")
  if ((written + size > budget)); then
    printf '%d more report(s) left out to keep the summary under its size limit; ' \
      "$((${#reports[@]} - index))" >>"$summary"
    printf 'every report.md is in the evidence artifact.\n\n' >>"$summary"
    break
  fi
  name=${report#"$evidence_dir"/}
  name=${name%/report.md}
  # Test ids may carry characters HTML would swallow in the <summary> line. (sed, not
  # ${name//</&lt;}: bash 5.2 reads & in a replacement as the matched text.)
  name=$(printf '%s' "$name" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g')
  {
    printf '<details><summary>%s</summary>\n\n' "$name"
    cat "$report"
    printf '\n\n</details>\n\n'
  } >>"$summary"
  written=$((written + size))
done
