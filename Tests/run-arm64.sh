#!/bin/sh
# The C core and its C tests on 64-bit ARM: cross-compiled with clang against
# Debian's arm64 cross C library and libatomic_ops' headers
# (cmake/aarch64-linux-gnu.cmake), then run under user-mode emulation
# (qemu-aarch64): the unit tests and the stress test.
#
# What this shows: the core builds for aarch64 without x86-only flags, and
# libatomic_ops' ARM code paths (load-acquire/store-release, exclusive
# load/store pairs, barriers) run the same tests the x86-64 build passes.
# What it cannot show: qemu runs the guest's threads on the host's cores
# with the host's (x86-64, TSO) memory order, so a missing barrier that only
# ARM hardware would expose still passes here. The orderings are argued in
# docs/core-algorithm.md instead, one row per atomic.
#
# Needs (Debian): clang (the Swift toolchain's or Debian's), cmake, ninja,
# pkg-config, libatomic-ops-dev, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross,
# qemu-user.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${FLARE_ARM64_BUILD_DIR:-$root/build/arm64}
step() { printf '\n== %s\n' "$*"; }

step "cross-compile the C core and its C tests for aarch64"
cmake -S "$root" -B "$build" -G Ninja -DFLARE_SWIFT=OFF \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" >/dev/null
cmake --build "$build" -j 2
file "$build/Tests/CFlareTests/test_core" | grep -q 'ARM aarch64' || {
    echo "not an aarch64 binary: $build/Tests/CFlareTests/test_core"; exit 1; }

step "C unit and stress tests under qemu-aarch64"
ctest --test-dir "$build" --output-on-failure

step "aarch64 C tests passed"
