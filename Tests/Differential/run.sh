#!/usr/bin/env bash
# Builds and runs the differential tester (Flare against ReactiveSwift 7.2.1).
#
#   Tests/Differential/run.sh [differential options]
#   e.g. Tests/Differential/run.sh --seed 1 --budget 60
#        Tests/Differential/run.sh --case 0x1234abcd --verbose
#
# ReactiveSwift's sources: REACTIVESWIFT_SOURCE (a folder holding Sources/,
# such as a checkout of ReactiveSwift's tag 7.2.1), by default
# ../shared/conformance/rs-src relative to the repository root. They are
# linked in as Tests/Differential/ReactiveSwift (ignored by git).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=${REACTIVESWIFT_SOURCE:-$root/../shared/conformance/rs-src}
if [ ! -f "$src/Sources/Signal.swift" ]; then
    echo "ReactiveSwift 7.2.1's sources not found in $src (expected $src/Sources/Signal.swift)." >&2
    echo "Get them with: git clone --depth 1 --branch 7.2.1 https://github.com/ReactiveCocoa/ReactiveSwift" >&2
    echo "and set REACTIVESWIFT_SOURCE to the clone." >&2
    exit 2
fi
ln -sfn "$(cd "$src/Sources" && pwd)" "$here/ReactiveSwift"
mkdir -p "$here/.build"
# Built in its folder; run from the caller's, so that paths given to it
# (--open, --write-open) are the caller's.
if ! (cd "$here" && swift build -c release > .build/differential-build.log 2>&1); then
    cat "$here/.build/differential-build.log" >&2
    exit 1
fi
exec "$here/.build/release/differential" --coverage "$root/Sources/Flare" --rs-sources "$here/ReactiveSwift" "$@"
