#!/bin/sh
# Builds the libFuzzer target Tests/Fuzz/fuzz_core.c with ASan + UBSan and
# runs it for SECONDS (default 30) on the committed seed corpus. New inputs
# go to a scratch corpus, never into the source tree. Any crash, sanitizer
# report or log mismatch fails the script (and leaves the reproducer in
# $FLARE_FUZZ_OUT, default build/fuzz).
#
# Usage: Tests/Fuzz/run.sh [SECONDS]
set -eu

seconds=${1:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
clang=${FLARE_FUZZ_CC:-/opt/swift/usr/bin/clang}
out=${FLARE_FUZZ_OUT:-$root/build/fuzz}
mkdir -p "$out/corpus"

cflags=$(pkg-config --cflags atomic_ops)
libs=$(pkg-config --libs atomic_ops)
# -mcx16 is x86-64 only (the core must agree with Swift's importer there).
case $(uname -m) in x86_64|amd64) cx16=-mcx16 ;; *) cx16= ;; esac
# shellcheck disable=SC2086
"$clang" -std=c11 -D_GNU_SOURCE -DFLARE_DEBUG_ACCOUNTING -DFLARE_DEBUG_CHECKS -g -O1 $cx16 -Wall -Wextra -Werror \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$root/Sources/CFlare/include" -I"$root/Tests/CFlareTests" $cflags \
    "$root/Tests/Fuzz/fuzz_core.c" "$root/Tests/CFlareTests/client.c" \
    "$root/Sources/CFlare/bag.c" "$root/Sources/CFlare/batch.c" "$root/Sources/CFlare/serial.c" "$root/Sources/CFlare/waits.c" "$root/Sources/CFlare/trace.c" \
    -o "$out/fuzz_core" $libs -lpthread 2>"$out/build.log" || { cat "$out/build.log"; exit 1; }

cd "$out"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
"$out/fuzz_core" -max_total_time="$seconds" -max_len=512 -print_final_stats=1 \
    -artifact_prefix="$out/" "$out/corpus" "$root/Tests/Fuzz/corpus" 2>&1 |
    tee "$out/fuzz.log" | grep -E "^#[0-9]+ +(INITED|DONE)|stat::|ERROR|SUMMARY|fuzz_core:|Test unit written" || true
# The pipeline hides the fuzzer's status; its log says whether it finished.
if grep -qE "ERROR: |fuzz_core: .* differ|Test unit written|deadly signal" "$out/fuzz.log"; then
    echo "fuzz: FAILED (see $out/fuzz.log)"
    exit 1
fi
grep -q "^Done [0-9]* runs" "$out/fuzz.log" || { echo "fuzz: did not finish"; exit 1; }
grep "^Done" "$out/fuzz.log"
