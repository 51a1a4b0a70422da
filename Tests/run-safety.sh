#!/bin/sh
# The core's safety suite, for CI (.ci/run) and by hand, from a clean clone:
#   1. CMake configure + build (C core, C tests, Swift library) and ctest
#      (unit + stress tests of the C core)
#   2. the C tests under valgrind memcheck (ctest -L memcheck)
#   3. the C stress test under ThreadSanitizer, on a core built without the
#      debug accounting (CMake FLARE_TSAN=ON, ctest -L tsan), with the
#      Swift toolchain's clang (FLARE_TSAN_CC overrides it)
#   4. the Promela model under spin (Tests/Model/run.sh)
#   5. a libFuzzer run (Tests/Fuzz/run.sh, FLARE_FUZZ_SECONDS, default 30)
# Exits non-zero on the first failure. Needs: cmake, ninja, gcc, pkg-config,
# libatomic-ops-dev, valgrind, spin, the Swift toolchain (swiftc and its
# clang, on PATH or in /opt/swift/usr/bin). FLARE_SWIFT=OFF skips the Swift
# library for C-only hosts.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${FLARE_BUILD_DIR:-$root/build/safety}
step() { printf '\n== %s\n' "$*"; }

step "cmake configure + build"
cmake -S "$root" -B "$build" -G Ninja -DFLARE_SWIFT="${FLARE_SWIFT:-ON}" >/dev/null
cmake --build "$build" -j 2

step "ctest: unit and stress tests of the C core"
ctest --test-dir "$build" -LE memcheck --output-on-failure

step "valgrind memcheck of the C tests"
ctest --test-dir "$build" -L memcheck --output-on-failure

step "ThreadSanitizer: the C stress test, core without accounting"
tsan_cc=${FLARE_TSAN_CC:-$(command -v clang || echo /opt/swift/usr/bin/clang)}
cmake -S "$root" -B "$build-tsan" -G Ninja -DFLARE_SWIFT=OFF -DFLARE_TSAN=ON \
    -DCMAKE_C_COMPILER="$tsan_cc" >/dev/null
cmake --build "$build-tsan" -j 2
ctest --test-dir "$build-tsan" -L tsan --output-on-failure

step "spin: Tests/Model/flare.pml"
"$root/Tests/Model/run.sh"

step "libFuzzer: Tests/Fuzz/fuzz_core.c"
FLARE_FUZZ_OUT="$build/fuzz" "$root/Tests/Fuzz/run.sh" "${FLARE_FUZZ_SECONDS:-30}"

step "safety suite passed"
