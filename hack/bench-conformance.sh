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
#   REPEAT      rounds, each running decode and check on every size; the fastest counts (default 3)
#   SCALING     1: also measure half the input     (default 1)
#   WORKDIR     where the binaries and streams go  (default: a temporary directory, removed)
#
# Exit status: 0 all goals met, 1 a goal missed, 2 the run itself failed.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N_SERVICES=${N_SERVICES:-100000}
N_OBS=${N_OBS:-1000000}
REPEAT=${REPEAT:-3}
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

# run FILE MODE: runs lbstatus once and prints "wall_s cpu_s maxrss_kib".
# MODE is "decode" (check --decode-only) or "check" (check -o json).
run() {
  local args=(check -o json "$1")
  [[ $2 == decode ]] && args=(check --decode-only "$1")
  if ! "$TIME" -v -o "$WORK/time.txt" "$WORK/lbstatus" "${args[@]}" > /dev/null 2> "$WORK/stderr.txt"; then
    echo "bench-conformance: lbstatus ${args[*]} failed:" >&2
    cat "$WORK/stderr.txt" "$WORK/time.txt" >&2
    exit 2
  fi
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (j = 1; j <= n; j++) s = s * 60 + p[j]; wall = s }
    /User time/ { user = $2 }
    /System time/ { sys = $2 }
    /Maximum resident set size/ { rss = $2 }
    END { printf "%.2f %.2f %d\n", wall, user + sys, rss }' "$WORK/time.txt"
}

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b ? a : b) }'; }
pct() { awk -v c="$1" -v d="$2" 'BEGIN { printf "%.1f", (c / d - 1) * 100 }'; }

full="$WORK/stream-$N_OBS-$N_SERVICES.json"
generate "$N_OBS" "$N_SERVICES" "$full"
sizes=("$N_OBS $N_SERVICES $full")
if [[ $SCALING == 1 ]]; then
  half_obs=$((N_OBS / 2)) half_svc=$(((N_SERVICES + 1) / 2))
  half="$WORK/stream-$half_obs-$half_svc.json"
  generate "$half_obs" "$half_svc" "$half"
  sizes=("$half_obs $half_svc $half" "${sizes[@]}")
fi

printf '\n%-12s %-9s %8s | %8s %8s %9s | %8s %8s %9s | %10s %9s\n' \
  observations services "size MiB" "decode s" "check s" overhead "decode" "check" overhead "decode MiB" "check MiB"
printf '%-12s %-9s %8s | %-28s | %-28s |\n' "" "" "" "  wall clock time" "  CPU time (user+system)"
status=0
# Each round runs decode and check on every size in turn, so that a busy
# spell of the machine slows all of them alike instead of one size or one
# mode; the fastest of REPEAT rounds counts, and the check's largest peak
# memory. best[IDX MODE] holds "wall cpu rss".
declare -A best=()
for ((round = 0; round < REPEAT; round++)); do
  for idx in "${!sizes[@]}"; do
    read -r _ _ file <<< "${sizes[$idx]}"
    for mode in decode check; do
      read -r w c r <<< "$(run "$file" "$mode")"
      if [[ -z ${best[$idx $mode]:-} ]]; then
        best[$idx $mode]="$w $c $r"
      else
        read -r bw bc br <<< "${best[$idx $mode]}"
        best[$idx $mode]="$(min "$bw" "$w") $(min "$bc" "$c") $((r > br ? r : br))"
      fi
    done
  done
done
declare -a check_walls=() check_cpus=() decode_walls=() decode_cpus=()
for idx in "${!sizes[@]}"; do
  read -r obs svc file <<< "${sizes[$idx]}"
  read -r dw dc dr <<< "${best[$idx decode]}"
  read -r cw cc cr <<< "${best[$idx check]}"
  size=$(($(stat -c %s "$file") / 1048576))
  ow=$(pct "$cw" "$dw") oc=$(pct "$cc" "$dc")
  printf '%-12s %-9s %8s | %8s %8s %8s%% | %8s %8s %8s%% | %10d %9d\n' \
    "$obs" "$svc" "$size" "$dw" "$cw" "$ow" "$dc" "$cc" "$oc" $((dr / 1024)) $((cr / 1024))
  check_walls+=("$cw") check_cpus+=("$cc") decode_walls+=("$dw") decode_cpus+=("$dc")
  last_ow=$ow last_oc=$oc last_rss=$((cr / 1024))
done

echo
goal() { # goal NAME OK DETAIL
  if [[ $2 == 1 ]]; then echo "  met:    $1 ($3)"; else echo "  MISSED: $1 ($3)"; status=1; fi
}
le() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) }'; }
goal "checking adds at most 25% to decoding, wall clock" "$(le "$last_ow" 25)" "+$last_ow%"
goal "checking adds at most 25% to decoding, CPU time" "$(le "$last_oc" 25)" "+$last_oc%"
goal "peak memory at most 256 MiB" "$((last_rss <= 256 ? 1 : 0))" "$last_rss MiB"
if [[ $SCALING == 1 ]]; then
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
  rw=$(ratio "${check_walls[1]}" "${check_walls[0]}") rc=$(ratio "${check_cpus[1]}" "${check_cpus[0]}")
  dw=$(ratio "${decode_walls[1]}" "${decode_walls[0]}") dc=$(ratio "${decode_cpus[1]}" "${decode_cpus[0]}")
  # The decode baseline's own factor tells how much of a factor above 2
  # the machine adds (caches, other work) rather than the checker.
  goal "doubling the input at most doubles the time, wall clock" "$(le "$rw" 2.0)" "x$rw; decoding alone x$dw"
  goal "doubling the input at most doubles the time, CPU time" "$(le "$rc" 2.0)" "x$rc; decoding alone x$dc"
fi
echo "  (REPEAT=$REPEAT interleaved rounds, fastest kept; wall clock suffers most when other work shares the machine)"
exit $status
