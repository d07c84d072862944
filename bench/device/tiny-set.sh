# The tiny parity set of the device A/B packs, sourced by their prep and run
# scripts (a prep copies this file into its pack beside the run script):
# embryo-tiny, dory-tiny and their odd-size variants, f16 and q8_2f, h200 plans,
# each against the CPU reference on the GPU machine.

# tiny_set_configs ROOT DIR: the four configs into DIR/cfg.
tiny_set_configs() {
  local root=$1 dir=$2 edit=$1/test/e2e/Inputs/edit_config.py
  cp "$root"/examples/{embryo-tiny,dory-tiny}.json "$dir/cfg/"
  python3 "$edit" "$root/examples/dory-tiny.json" "$dir/cfg/dory-tiny-odd.json" \
    loop.exit_threshold=0.05 hidden_size=70 intermediate_size=90 head_dim=10 num_q_heads=6 num_kv_heads=2
  python3 "$edit" "$root/examples/embryo-tiny.json" "$dir/cfg/embryo-tiny-odd.json" moe=DEL \
    hidden_size=69 anchor.head_dim=13 anchor.rotary_dim=6 gdn.head_k_dim=13 gdn.head_v_dim=11 \
    num_clusters=15 cluster_size=17 vocab_size=255
}

# tiny_set_plans KILN_COMPILE DIR FORMAT [VARIANT FLAGS...]: the four configs' h200
# plans of FORMAT into DIR/tiny (CONFIG.FORMAT[.VARIANT].kplan, compiled with FLAGS).
tiny_set_plans() {
  local c compile=$1 dir=$2 format=$3 variant=${4:+.$4}
  shift 3; [ $# -gt 0 ] && shift
  for c in embryo-tiny embryo-tiny-odd dory-tiny dory-tiny-odd; do
    "$compile" --quiet "$dir/cfg/$c.json" --cost-target h200 --weight-format "$format" "$@" \
      -o "$dir/tiny/$c.$format$variant.kplan"
  done
}

# tiny_set_parity DIR: one line a plan of DIR/tiny, 48 greedy tokens against the reference.
tiny_set_parity() {
  local dir=$1 p n c f
  for p in "$dir"/tiny/*.kplan; do
    n=$(basename "$p" .kplan); c=${n%%.*}; f=${n#*.}; f=${f%%.*}
    "$dir/bin/kiln-synth" --config "$dir/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
    echo "$n: $(timeout 25 "$dir/bin/kiln-run" "$p" --weights /tmp/w.st \
      --prompt 1,2,3,4,5,6,7,8,9,10,11,12,13 --max-new 48 --check-reference "$dir/cfg/$c.json" \
      2>&1 | grep -E 'check-reference|rror' | tr '\n' ' ')"
  done
  rm -f /tmp/w.st
}
