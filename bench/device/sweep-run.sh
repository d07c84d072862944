#!/usr/bin/env bash
# Runs what sweep-prep.sh prepared, on the GPU machine: for each config and format, one
# kiln-bench over A's and B's plans at positions 256 to 30,000 reached by
# kiln_session_seek (--seek), then B's per-dispatch profile at 256, 4,000 and 30,000
# (kiln-run --start-position). Writes OUT/summary.txt and OUT/profiles.txt.
#
#   [SWEEP_CONFIGS="dory-1b-32k ..."] [SWEEP_FORMATS="f16 ..."] bash DIR/sweep-run.sh DIR OUT_DIR
# SWEEP_PROFILES: the plans profiled (default B; "A B" profiles the baseline too);
# SWEEP_DRAWS=0 skips the sampling runs; the tiny parity set runs first where the pack
# has one (SWEEP_PARITY=0 skips it).
# The first profile of each plan read 3.6x slower on 2026-12-05 (at 256, after the
# bench had run the plan; the reason was not found): a throwaway profile runs first.
set -uo pipefail
dir=${1:?usage: sweep-run.sh DIR OUT_DIR}; out=${2:?usage: sweep-run.sh DIR OUT_DIR}
mkdir -p "$out"
bin=$dir/bin
{
if [ -d "$dir/tiny" ] && [ "${SWEEP_PARITY:-1}" != 0 ]; then
  source "$dir/tiny-set.sh"
  tiny_set_parity "$dir"
fi
cat "$dir/estimates.txt" 2>/dev/null
# Dory first: on 2026-12-05 the embryo half alone took the 210 s the run was given.
for c in ${SWEEP_CONFIGS:-dory-1b-32k embryo-1b-32k}; do
  for f in ${SWEEP_FORMATS:-f16 q8_2f}; do
    [ -e "$dir/plans/$c.$f.B.kplan" ] || continue
    "$bin/kiln-synth" --config "$dir/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
    # A is optional (a session with nothing to compare runs B alone).
    "$bin/kiln-bench" $(ls "$dir/plans/$c.$f".{A,B}.kplan 2>/dev/null) --weights /tmp/w.st \
      -p 0 -n 64 -r 2 --positions 256,1024,4096,16384,30000 --seek --read-bandwidth 4530
    for s in ${SWEEP_PROFILES:-B}; do
      "$bin/kiln-run" "$dir/plans/$c.$f.$s.kplan" --weights /tmp/w.st --prompt 1,2,3,4 \
        --max-new 16 --profile --no-weight-check > /dev/null 2>&1
      for p in 256 4000 30000; do
        { echo "==== $c $f $s @$p"
          "$bin/kiln-run" "$dir/plans/$c.$f.$s.kplan" --weights /tmp/w.st --prompt 1,2,3,4 \
            --start-position "$p" --max-new 16 --profile --no-weight-check 2>&1; } >> "$out/profiles.txt"
      done
    done
    [ "${SWEEP_DRAWS:-1}" = 0 ] && continue
    # Drawing on the device (temperature 0.8, top-p 0.9) against greedy: the sample
    # kernel's time (a profile runs it, the host then samples) and the wall time per token
    # at 16 tokens a submission.
    { echo "==== $c $f B draws"
      "$bin/kiln-run" "$dir/plans/$c.$f.B.kplan" --weights /tmp/w.st --prompt 1,2,3,4 \
        --max-new 16 --temperature 0.8 --top-p 0.9 --profile --no-weight-check 2>&1 | grep -E "sample|total"
      for t in 0 0.8; do
        echo "temperature $t:"
        "$bin/kiln-run" "$dir/plans/$c.$f.B.kplan" --weights /tmp/w.st --prompt 1,2,3,4 \
          --start-position 256 --max-new 256 --temperature "$t" --top-p 0.9 --stats \
          --no-weight-check 2>&1 | grep -E "ms/token|submits"
      done; } >> "$out/profiles.txt"
  done
done
rm -f /tmp/w.st
grep -E "^====|^  total|sample|ms/token|^temperature" "$out/profiles.txt"
} 2>&1 | tee "$out/summary.txt"
