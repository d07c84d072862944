#!/usr/bin/env bash
# The cost model's whole-token estimates of one config at the profiled positions (issue
# 16's accuracy check), a line each: "CONFIG FORMAT @P estimate   total: ...". Used by
# the device prep scripts.
#
#   bench/device/estimates.sh KILN_COMPILE CONFIG.json FORMAT [POSITIONS]   (default "256 4000")
set -euo pipefail
compile=${1:?usage: estimates.sh KILN_COMPILE CONFIG.json FORMAT [POSITIONS]}
config=${2:?usage: estimates.sh KILN_COMPILE CONFIG.json FORMAT [POSITIONS]}
format=${3:?usage: estimates.sh KILN_COMPILE CONFIG.json FORMAT [POSITIONS]}
name=$(basename "$config" .json)
plan=$(mktemp --suffix=.kplan)
trap 'rm -f "$plan"' EXIT
for p in ${4:-256 4000}; do
  "$compile" --quiet "$config" --weight-format "$format" --cost-target h200 \
    --fusion-report --position "$p" -o "$plan" | grep "total:" \
    | sed "s/^/$name $format @$p estimate /"
done
