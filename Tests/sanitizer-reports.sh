#!/usr/bin/env bash
# Runs a command whose sanitizer reports go to files (log_path), and prints
# them after it: whole to a file, and in short (the warning, the first frames
# of each stack, the summary) as the last lines of the output, where a CI log
# cut to its tail still shows them.
#
#   Tests/sanitizer-reports.sh thread|address COMMAND [ARG...]
#
# The sanitizer's options come from TSAN_OPTIONS / ASAN_OPTIONS as set by the
# caller; log_path is added here. Exit status: the command's (a sanitizer
# that reports makes its process exit non-zero; a report from a child that
# was meant to crash, as an exit test's, is shown but does not fail).
set -uo pipefail
kind=$1; shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/flare-$kind-reports.XXXXXX")
case $kind in
    thread)  export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}log_path=$dir/report" ;;
    address) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$dir/report" ;;
    *) echo "sanitizer-reports.sh: unknown sanitizer '$kind' (thread or address)" >&2; exit 2 ;;
esac
"$@"
status=$?
shopt -s nullglob
reports=("$dir"/report.*)
if (( ${#reports[@]} )); then
    all="$dir/all.txt"
    cat "${reports[@]}" > "$all"
    printf '\n==> %d %s-sanitizer report file(s); whole in %s; in short:\n' \
        "${#reports[@]}" "$kind" "$all"
    # Keep the headings and the first four frames of every stack.
    awk '/^ *#[0-9]+ / { n = $1; sub("#", "", n); if (n + 0 < 4) print; next }
         /^[[:space:]]*$/ { next }
         { print }' "$all" | sed 's/ (BuildId: [0-9a-f]*)//' |
        { swift demangle --simplified 2>/dev/null || cat; } | cut -c1-240
fi
exit $status
