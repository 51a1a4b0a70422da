#!/bin/sh
# Builds the DocC archive of Flare with the toolchain's own docc, failing on
# any warning (a broken link, an unresolved symbol) and on any public symbol
# without a doc comment. The SwiftPM documentation plugin cannot be fetched
# here, so this does its work: symbol graphs from the compiler, then
# `docc convert`.
#
#   Tests/build-docs.sh            -> .build/docs/Flare.doccarchive
#   docc preview Sources/Flare/Flare.docc \
#       --additional-symbol-graph-dir .build/docs/symbol-graphs   (to browse)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
out=${FLARE_DOCS_DIR:-$root/.build/docs}
graphs="$out/symbol-graphs"
docc=$(command -v docc || echo /opt/swift/usr/bin/docc)
rm -rf "$graphs" "$out/Flare.doccarchive"
mkdir -p "$graphs"

# Its own scratch path, built afresh: the symbol-graph flags would otherwise
# rebuild the main build's Flare module, and an up-to-date build emits no
# graphs.
rm -rf "$out/build"
swift build --package-path "$root" --scratch-path "$out/build" --target Flare \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public >/dev/null
# Only Flare's own graph (and its extensions of other modules' types).
find "$graphs" -name '*.symbols.json' ! -name 'Flare.symbols.json' ! -name 'Flare@*.symbols.json' -delete

python3 - "$graphs" <<'PY'
import json, os, sys
missing = []
for name in sorted(os.listdir(sys.argv[1])):
    graph = json.load(open(os.path.join(sys.argv[1], name)))
    for s in graph["symbols"]:
        if s.get("accessLevel") not in ("public", "open"):
            continue
        # Members the compiler writes (Hashable's, RawRepresentable's
        # init(rawValue:)) have no place in the source to document.
        if "::SYNTHESIZED::" in s["identifier"]["precise"] or "location" not in s:
            continue
        if not s.get("docComment"):
            missing.append(".".join(s["pathComponents"]) + "  (" + s["kind"]["displayName"] + ")")
if missing:
    print("public symbols without a doc comment:")
    for m in missing:
        print("  " + m)
    sys.exit(1)
print("every public symbol is documented")
PY

"$docc" convert "$root/Sources/Flare/Flare.docc" \
    --additional-symbol-graph-dir "$graphs" \
    --output-dir "$out/Flare.doccarchive" \
    --fallback-display-name Flare --fallback-bundle-identifier org.flare.Flare \
    --transform-for-static-hosting --warnings-as-errors
echo "DocC archive: $out/Flare.doccarchive"
