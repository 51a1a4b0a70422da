#!/bin/sh
# Every ```swift block of docs/Migrating.md must stand verbatim (ignoring
# indentation) in Tests/FlareTests/MigrationGuideTests.swift, which compiles
# and runs it: so no snippet of the guide can drift from code that works.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
python3 - "$root/docs/Migrating.md" "$root/Tests/FlareTests/MigrationGuideTests.swift" <<'PY'
import re, sys
guide, tests = open(sys.argv[1]).read(), open(sys.argv[2]).read()
norm = lambda text: [l.strip() for l in text.splitlines() if l.strip()]
test_lines = norm(tests)
blocks = re.findall(r"```swift\n(.*?)```", guide, re.S)
missing = 0
for i, block in enumerate(blocks, 1):
    lines = norm(block)
    if not any(test_lines[k:k + len(lines)] == lines for k in range(len(test_lines) - len(lines) + 1)):
        missing += 1
        print("docs/Migrating.md: swift block %d (%s) is not in MigrationGuideTests.swift" % (i, lines[0][:60]))
if missing or not blocks:
    sys.exit(1)
print("docs/Migrating.md: %d swift blocks, each compiled and run by MigrationGuideTests" % len(blocks))
PY
