#!/usr/bin/env bash
# Checks an installed `cipherstore` (the release binary `make install` writes), as a user runs
# it: it starts with no library path set and reports the expected SQLCipher, and a conversion
# cancelled by SIGINT or SIGTERM exits 130 or 143 (the same code in --json), leaving no output
# and no temporary file.
# Usage: check-installed.sh PREFIX EXPECTED_SQLCIPHER_VERSION
set -euo pipefail
prefix="$1"
expected="$2"
binary="$prefix/bin/cipherstore"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

version="$(env -u LD_LIBRARY_PATH "$binary" --version)"
echo "$version"
case "$version" in
    *"SQLCipher $expected"*) ;;
    *) echo "check-installed: expected SQLCipher $expected, the installed binary says: $version" >&2; exit 1 ;;
esac

# A plaintext database large enough that a conversion runs for a while.
printf 'PRAGMA journal_mode = OFF;\nCREATE TABLE t(x);\nWITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 160000) INSERT INTO t SELECT randomblob(700) FROM n;\n' \
    | /usr/bin/sqlcipher "$work/big.db" > /dev/null
printf 'installed binary passphrase\n' > "$work/key"
chmod 600 "$work/key"

failures=0
check() {
    local signal="$1" expected_code="$2"
    shift 2
    rm -f "$work/out.db" "$work/out.json"
    env -u LD_LIBRARY_PATH "$binary" "$@" --quiet --json > "$work/out.json" 2> "$work/err" &
    local pid=$!
    # Once its temporary output exists, the conversion is under way (up to 20 s to start).
    for _ in $(seq 200); do
        [[ -n "$(find "$work" -name '.out.db*.tmp' -print -quit)" ]] && break
        sleep 0.1
    done
    kill -"$signal" "$pid" || true
    local code=0
    wait "$pid" || code=$?
    local leftovers
    leftovers="$(find "$work" -name '*.tmp*' | wc -l)"
    if [[ "$code" != "$expected_code" ]] || ! grep -q "\"exitCode\":$expected_code" "$work/out.json" \
        || [[ -e "$work/out.db" ]] || [[ "$leftovers" != 0 ]]; then
        echo "check-installed: $* after SIG$signal: exit $code (expected $expected_code), JSON $(cat "$work/out.json"), errors $(cat "$work/err"), output file $([[ -e "$work/out.db" ]] && echo left || echo absent), $leftovers temporary files" >&2
        failures=$((failures + 1))
    else
        echo "  $1 cancelled by SIG$signal: exit $code, nothing left"
    fi
}
check INT 130 encrypt "$work/big.db" -o "$work/out.db" --key-file "$work/key"
check TERM 143 encrypt "$work/big.db" -o "$work/out.db" --key-file "$work/key"
env -u LD_LIBRARY_PATH "$binary" encrypt "$work/big.db" -o "$work/encrypted.db" --key-file "$work/key" --quiet 2> /dev/null
printf 'another installed binary passphrase\n' > "$work/new"
chmod 600 "$work/new"
check INT 130 rekey "$work/encrypted.db" -o "$work/out.db" --old-key-file "$work/key" --new-key-file "$work/new"
check TERM 143 rekey "$work/encrypted.db" -o "$work/out.db" --old-key-file "$work/key" --new-key-file "$work/new"
exit "$failures"
