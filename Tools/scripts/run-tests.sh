#!/usr/bin/env bash
# Runs the test suite that `swift build --build-tests` built, as `make test` does: the
# command-line suites and the library's suites in two processes at once, then the memory
# suites alone.
#
# Why two processes: most command-line tests wait on a child `cipherstore` (killed, cut off,
# fed a failing file call), which leaves the cores idle in one process; the library's suites
# fill them. `swift test` holds a lock on the build folder, so the test bundle is run directly
# (its Swift Testing suites; the package has no XCTest cases). Each group's output is printed
# whole when it ends, the first to end first, so that the two never interleave.
# The memory suites measure this process's resident memory: anything running beside them would
# move the figure, so they run after the others, one at a time.
# Usage: run-tests.sh BIN_PATH (the folder that `swift build --show-bin-path` names)
set -uo pipefail
bundle="$1/CipherStorePackageTests.xctest"
if [ ! -x "$bundle" ]; then
    echo "run-tests: $bundle is missing: build the tests first (swift build --build-tests)" >&2
    exit 1
fi
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

run_group() {
    local name="$1"
    shift
    "$bundle" --testing-library swift-testing "$@" > "$logs/$name" 2>&1
    local status=$?
    echo "$status" > "$logs/$name.status"
    cat "$logs/$name"
    echo "run-tests: the $name suites exited with $status"
}

run_group "command-line" --filter 'CipherstoreCLITests\.' --skip 'MemoryTests' &
cli=$!
run_group "library" --skip 'CipherstoreCLITests\.|MemoryTests' &
library=$!
wait "$cli" "$library"

status=0
for name in "command-line" "library"; do
    [ "$(cat "$logs/$name.status" 2>/dev/null)" = 0 ] || { echo "run-tests: the $name suites failed (their output is above)" >&2; status=1; }
done
"$bundle" --testing-library swift-testing --filter 'MemoryTests' --no-parallel || status=1
exit "$status"
