#!/usr/bin/env bash
# README's test command: installs, builds, runs every test (GoogleTest + lit via ctest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}
start=$(date +%s)
bash "$root/scripts/build.sh"
cd "$build"
status=0
ctest --output-on-failure -j "$(nproc)" > ctest.log 2>&1 || status=$?
# The lit suite is one ctest test; show what it ran (its per-file lines and counts).
echo "== lit suite (one ctest test; per-file results):"
grep -E "^(PASS|FAIL|XFAIL|UNSUPPORTED|UNRESOLVED): Kiln ::" Testing/Temporary/LastTest.log | \
  awk '{print $1}' | sort | uniq -c || true
grep -E "Total Discovered Tests|^  (Passed|Failed|Unsupported)" Testing/Temporary/LastTest.log || true
echo "== GoogleTest suites (each test is one ctest test):"
grep -cE "^ *[0-9]+/[0-9]+ Test +#[0-9]+: " ctest.log | sed 's/^/   ctest tests run: /'
# The runtime alone (KILN_BUILD_COMPILER=OFF) must build without MLIR and keep the
# dependency rules (scripts/check-deps.sh, also a ctest test of the main build).
echo "== runtime-only build (KILN_BUILD_COMPILER=OFF)"
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
if cmake -S "$root" -B "$build/runtime-only" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DKILN_BUILD_COMPILER=OFF ${KILN_CMAKE_ARGS:-} > "$build/runtime-only.log" 2>&1 &&
   cmake --build "$build/runtime-only" -j "$(nproc)" >> "$build/runtime-only.log" 2>&1 &&
   (cd "$build/runtime-only" && ctest -R dependency-rules --output-on-failure) >> "$build/runtime-only.log" 2>&1; then
  echo "   runtime-only build and dependency rules: passed"
else
  echo "   runtime-only build or dependency rules FAILED (tail of $build/runtime-only.log):"
  tail -n 30 "$build/runtime-only.log"
  status=1
fi
# The runtime and the MLIR-free tools read untrusted plans, weights and configs: their
# unit tests (the plan verifier's corrupt and flipped-byte plans among them; lib/IO's
# safetensors and config readers; the reference) and the lit tests of kiln-run, kiln-synth,
# kiln-ref and kiln-bench (their bad-input cases) run again under AddressSanitizer and
# UndefinedBehaviorSanitizer, every finding fatal. Leak checks are off: the Vulkan driver
# (lavapipe) keeps allocations past exit. (The compiler's tools: the step after the fuzzers.)
echo "== runtime, lib/IO, the reference and the MLIR-free tools under ASan + UBSan"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
asan_tests=(KilnRuntimeTests KilnIOTests KilnReferenceComponentTests KilnReferenceModelTests)
lit=$(command -v lit || echo /usr/lib/llvm-22/bin/lit)
run_asan_tests() {
  for t in "${asan_tests[@]}"; do
    ASAN_OPTIONS=detect_leaks=0 "$build/runtime-asan/bin/$t" >> "$build/runtime-asan.log" 2>&1 || return 1
  done
}
if cmake -S "$root" -B "$build/runtime-asan" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DKILN_BUILD_COMPILER=OFF -DKILN_BUILD_PYTHON=OFF "-DCMAKE_CXX_FLAGS=$san" \
     "-DCMAKE_C_FLAGS=$san" "-DCMAKE_EXE_LINKER_FLAGS=$san" "-DCMAKE_SHARED_LINKER_FLAGS=$san" \
     ${KILN_CMAKE_ARGS:-} > "$build/runtime-asan.log" 2>&1 &&
   cmake --build "$build/runtime-asan" -j "$(nproc)" --target "${asan_tests[@]}" kiln-run \
     kiln-synth kiln-ref kiln-bench >> "$build/runtime-asan.log" 2>&1 &&
   run_asan_tests &&
   ASAN_OPTIONS=detect_leaks=0 "$lit" "$build/runtime-asan/test" \
     --filter 'tools/kiln-(run|synth|ref|bench)/' >> "$build/runtime-asan.log" 2>&1; then
  echo "   clean: ${asan_tests[*]} ($(grep -E '^\[  PASSED  \]' "$build/runtime-asan.log" | \
       sed 's/^\[  PASSED  \] //; s/\.$//' | paste -sd, -)) and the tools' lit tests" \
       "($(grep -E '^ *Passed *:' "$build/runtime-asan.log" | tail -n 1 | awk '{print $3}') passed)"
else
  echo "   sanitizer run FAILED (tail of $build/runtime-asan.log):"
  tail -n 30 "$build/runtime-asan.log"
  status=1
fi
# The same untrusted inputs under libFuzzer (fuzz/; Clang, ASan + UBSan): plans through
# the verifier, safetensors files through the reader, configs through the parser, seeded
# from the tiny models and examples/, KILN_FUZZ_SECONDS (default 30) each. A finding fails the run and leaves its
# input in $build/fuzz-run.
echo "== fuzzers (libFuzzer + ASan + UBSan, ${KILN_FUZZ_SECONDS:-30} s each)"
fuzz="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
run="$build/fuzz-run"
rm -rf "$run"; mkdir -p "$run/plans" "$run/weights" "$run/configs"
cp "$root"/examples/*.json "$run/configs/"
if cmake -S "$root" -B "$build/runtime-fuzz" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DKILN_BUILD_COMPILER=OFF -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_PYTHON=OFF \
     -DKILN_BUILD_FUZZERS=ON -DKILN_WERROR=OFF -DCMAKE_C_COMPILER=clang-22 \
     -DCMAKE_CXX_COMPILER=clang++-22 "-DCMAKE_CXX_FLAGS=$fuzz" "-DCMAKE_C_FLAGS=$fuzz" \
     ${KILN_CMAKE_ARGS:-} > "$build/runtime-fuzz.log" 2>&1 &&
   cmake --build "$build/runtime-fuzz" -j "$(nproc)" --target plan_verifier_fuzzer \
     safetensors_fuzzer config_fuzzer >> "$build/runtime-fuzz.log" 2>&1 &&
   "$build/bin/kiln-compile" --quiet "$root/examples/embryo-tiny.json" --weight-format q8_2f \
     --cost-target lavapipe -o "$run/plans/embryo-tiny.kplan" >> "$build/runtime-fuzz.log" 2>&1 &&
   "$build/bin/kiln-compile" --quiet "$root/examples/dory-tiny.json" --weight-format f16 \
     --cost-target lavapipe -o "$run/plans/dory-tiny.kplan" >> "$build/runtime-fuzz.log" 2>&1 &&
   "$build/bin/kiln-synth" --config "$root/examples/embryo-tiny.json" --format q8_2f --quiet \
     -o "$run/weights/embryo-tiny.safetensors" >> "$build/runtime-fuzz.log" 2>&1 &&
   (cd "$run" && ASAN_OPTIONS=detect_leaks=0 "$build/runtime-fuzz/bin/plan_verifier_fuzzer" \
      -max_total_time="${KILN_FUZZ_SECONDS:-30}" -rss_limit_mb=4096 plans) \
     >> "$build/runtime-fuzz.log" 2>&1 &&
   (cd "$run" && ASAN_OPTIONS=detect_leaks=0 "$build/runtime-fuzz/bin/safetensors_fuzzer" \
      -max_total_time="${KILN_FUZZ_SECONDS:-30}" -max_len=500000 weights) \
     >> "$build/runtime-fuzz.log" 2>&1 &&
   (cd "$run" && ASAN_OPTIONS=detect_leaks=0 "$build/runtime-fuzz/bin/config_fuzzer" \
      -max_total_time="${KILN_FUZZ_SECONDS:-30}" -rss_limit_mb=4096 configs) \
     >> "$build/runtime-fuzz.log" 2>&1; then
  grep -E "^Done [0-9]+ runs" "$build/runtime-fuzz.log" | sed 's/^/   /'
else
  echo "   fuzzers FAILED (tail of $build/runtime-fuzz.log):"
  tail -n 30 "$build/runtime-fuzz.log"
  status=1
fi
# kiln-opt's parser and the dialects' verifiers under libFuzzer: the compiler's dialect
# libraries built the same way (a few minutes on 2 cores), seeded from the .mlir tests.
echo "== MLIR parser fuzzer (libFuzzer + ASan + UBSan, ${KILN_FUZZ_SECONDS:-30} s)"
if cmake -S "$root" -B "$build/compiler-fuzz" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_PYTHON=OFF -DKILN_BUILD_FUZZERS=ON -DKILN_WERROR=OFF \
     -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 "-DCMAKE_CXX_FLAGS=$fuzz" \
     "-DCMAKE_C_FLAGS=$fuzz" ${KILN_CMAKE_ARGS:-} > "$build/compiler-fuzz.log" 2>&1 &&
   cmake --build "$build/compiler-fuzz" -j "$(nproc)" --target mlir_parser_fuzzer \
     >> "$build/compiler-fuzz.log" 2>&1 &&
   python3 "$root/fuzz/mlir_corpus.py" "$root" "$run/mlir" >> "$build/compiler-fuzz.log" 2>&1 &&
   (cd "$run" && "$build/compiler-fuzz/bin/mlir_parser_fuzzer" \
      -max_total_time="${KILN_FUZZ_SECONDS:-30}" -max_len=8192 -rss_limit_mb=4096 mlir) \
     >> "$build/compiler-fuzz.log" 2>&1; then
  grep -E "^Done [0-9]+ runs|seeds from" "$build/compiler-fuzz.log" | sed 's/^/   /'
else
  echo "   MLIR parser fuzzer FAILED (tail of $build/compiler-fuzz.log):"
  tail -n 30 "$build/compiler-fuzz.log"
  status=1
fi
# The compiler's tools from the same sanitizer build (Clang, ASan + UBSan, the fuzzer's
# coverage instrumentation harmless here): kiln-opt, kiln-compile and kiln-translate run
# every lit test that feeds them configs, stage IR, plans and bad input: the importer,
# the lowerings, fusion, the stage-to-GPU kernels, the pipeline, the SPIR-V/MSL/plan
# writers and the tools' command lines (tools/, Import/, Conversion/, Dialect/, Pipeline/,
# Target/; about 4.5 minutes of build on 2 cores beyond the fuzzer's libraries, and 2 of
# lit). Being Clang-built, they also catch output that depends on the compiler that
# built Kiln (argument evaluation order). kiln-run comes from the main build (its own
# sanitizer run is above); kiln-compile --cost-target native looks for it beside itself.
echo "== kiln-opt, kiln-compile and kiln-translate under ASan + UBSan (Clang): lit"
if cmake --build "$build/compiler-fuzz" -j "$(nproc)" --target kiln-opt kiln-compile \
     kiln-translate >> "$build/compiler-fuzz.log" 2>&1 &&
   ln -sf "$build/bin/kiln-run" "$build/compiler-fuzz/bin/kiln-run" &&
   ASAN_OPTIONS=detect_leaks=0:detect_container_overflow=0:allow_user_poisoning=0 \
     "$lit" "$build/test" --param sanitized_tools_dir="$build/compiler-fuzz/bin" \
     --filter '^Kiln :: (tools|Import|Conversion|Dialect|Pipeline|Target)/' \
     > "$build/compiler-asan-lit.log" 2>&1; then
  echo "   clean: $(grep -E '^ *Passed *:' "$build/compiler-asan-lit.log" | awk '{print $3}') lit tests"
else
  echo "   the compiler's tools under sanitizers FAILED (tail of $build/compiler-asan-lit.log):"
  grep -E "^(FAIL|UNRESOLVED):|runtime error|ERROR: AddressSanitizer" "$build/compiler-asan-lit.log" | head -n 20
  tail -n 20 "$build/compiler-asan-lit.log"
  status=1
fi
# Mutants of a stage module's contract attributes through the sanitized kiln-compile
# (fuzz/mutate_stage_modules.py): each a clean error or a plan, none a crash or a hang.
echo "== stage-module mutation campaign (sanitized kiln-compile, 60 mutants)"
if [ -x "$build/compiler-fuzz/bin/kiln-compile" ] &&
   python3 "$root/fuzz/mutate_stage_modules.py" --kiln-compile "$build/compiler-fuzz/bin/kiln-compile" \
     --count 60 --seed "$(date +%j)" > "$build/mutate-stage-modules.log" 2>&1; then
  echo "   $(tail -n 1 "$build/mutate-stage-modules.log")"
else
  echo "   stage-module mutation campaign FAILED (tail of $build/mutate-stage-modules.log):"
  tail -n 30 "$build/mutate-stage-modules.log"
  status=1
fi
echo "kiln: build + tests took $(( $(date +%s) - start )) s"
# End with ctest's own summary.
sed -n '/tests passed/,$p' ctest.log
exit $status
