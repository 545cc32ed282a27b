#!/usr/bin/env bash
# Copyright The lbstatus Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Measures "lbstatus check" against a plain decode of the same stream with
# the same decoder ("lbstatus check --decode-only"), and the checker's peak
# memory, on a generated stream of LoadBalancer Service observations
# (hack/genstream: N_OBS observations of N_SERVICES Services, as
# "kubectl get services --watch -o json" prints them).
#
# Goals (issue 5): checking adds at most 25% to decoding; the checker's peak
# memory is at most 256 MiB; doubling the input at most doubles the time
# (measured against a run at half the size, unless SCALING=0).
#
# Not part of CI: at the default size the stream is about 2 GB and the run
# takes minutes. Smaller runs for a smoke test:
#
#   N_SERVICES=1000 N_OBS=10000 hack/bench-conformance.sh
#
# Environment:
#   N_SERVICES  distinct Services                   (default 100000)
#   N_OBS       observations                        (default 1000000)
#   REPEAT      runs of each measurement; the fastest counts (default 2)
#   SCALING     1: also measure half the input     (default 1)
#   WORKDIR     where the binaries and streams go  (default: a temporary directory, removed)
#
# Exit status: 0 all goals met, 1 a goal missed, 2 the run itself failed.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N_SERVICES=${N_SERVICES:-100000}
N_OBS=${N_OBS:-1000000}
REPEAT=${REPEAT:-2}
SCALING=${SCALING:-1}
TIME=/usr/bin/time

if [[ ! -x $TIME ]]; then
  echo "bench-conformance: $TIME is missing; install GNU time (apt-get install -y time)" >&2
  exit 2
fi
if [[ -n ${WORKDIR:-} ]]; then
  WORK=$WORKDIR
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi

cd "$ROOT"
echo "building lbstatus and genstream into $WORK" >&2
go build -o "$WORK/lbstatus" ./cmd/lbstatus
go build -o "$WORK/genstream" ./hack/genstream

# generate OBS SERVICES FILE
generate() {
  if [[ ! -s $3 ]]; then
    echo "generating $1 observations of $2 Services into $3" >&2
    "$WORK/genstream" -observations "$1" -services "$2" > "$3"
  fi
}

# measure FILE MODE: prints "seconds maxrss_kib", the fastest of REPEAT runs
# (and the peak memory of that run). MODE is "decode" or "check".
measure() {
  local file=$1 mode=$2 best="" best_rss="" i out
  for ((i = 0; i < REPEAT; i++)); do
    local args=(check -o json "$file")
    [[ $mode == decode ]] && args=(check --decode-only "$file")
    if ! "$TIME" -v -o "$WORK/time.txt" "$WORK/lbstatus" "${args[@]}" > /dev/null 2> "$WORK/stderr.txt"; then
      echo "bench-conformance: lbstatus ${args[*]} failed:" >&2
      cat "$WORK/stderr.txt" "$WORK/time.txt" >&2
      exit 2
    fi
    out=$(awk -F': ' '
      /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (j = 1; j <= n; j++) s = s * 60 + p[j]; wall = s }
      /Maximum resident set size/ { rss = $2 }
      END { printf "%.2f %d\n", wall, rss }' "$WORK/time.txt")
    read -r secs rss <<< "$out"
    if [[ -z $best ]] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$secs best_rss=$rss
    fi
  done
  echo "$best $best_rss"
}

full="$WORK/stream-$N_OBS-$N_SERVICES.json"
generate "$N_OBS" "$N_SERVICES" "$full"
sizes=("$N_OBS $N_SERVICES $full")
if [[ $SCALING == 1 ]]; then
  half_obs=$((N_OBS / 2)) half_svc=$(((N_SERVICES + 1) / 2))
  half="$WORK/stream-$half_obs-$half_svc.json"
  generate "$half_obs" "$half_svc" "$half"
  sizes=("$half_obs $half_svc $half" "${sizes[@]}")
fi

printf '\n%-12s %-9s %9s %10s %10s %9s %11s %10s\n' observations services "size MiB" "decode s" "check s" overhead "decode MiB" "check MiB"
status=0
declare -a check_secs=()
for entry in "${sizes[@]}"; do
  read -r obs svc file <<< "$entry"
  read -r dsec drss <<< "$(measure "$file" decode)"
  read -r csec crss <<< "$(measure "$file" check)"
  size=$(($(stat -c %s "$file") / 1048576))
  overhead=$(awk -v c="$csec" -v d="$dsec" 'BEGIN { printf "%.1f", (c / d - 1) * 100 }')
  printf '%-12s %-9s %9s %10s %10s %8s%% %11d %10d\n' "$obs" "$svc" "$size" "$dsec" "$csec" "$overhead" $((drss / 1024)) $((crss / 1024))
  check_secs+=("$csec")
  last_overhead=$overhead last_rss=$((crss / 1024))
done

echo
goal() { # goal NAME OK DETAIL
  if [[ $2 == 1 ]]; then echo "  met:    $1 ($3)"; else echo "  MISSED: $1 ($3)"; status=1; fi
}
goal "checking adds at most 25% to decoding" "$(awk -v o="$last_overhead" 'BEGIN { print (o <= 25) }')" "+$last_overhead%"
goal "peak memory at most 256 MiB" "$((last_rss <= 256 ? 1 : 0))" "$last_rss MiB"
if [[ $SCALING == 1 ]]; then
  ratio=$(awk -v a="${check_secs[1]}" -v b="${check_secs[0]}" 'BEGIN { printf "%.2f", a / b }')
  goal "doubling the input at most doubles the time" "$(awk -v r="$ratio" 'BEGIN { print (r <= 2.0) }')" "x$ratio"
fi
exit $status
