#!/usr/bin/env bash
# Python's sqlcipher3 for the interoperability tests: the sqlcipher3-binary wheel (which bundles
# its own SQLCipher 4) in a virtual environment of their own, made once and reused by every run
# (both SQLCipher versions). Usage: python-sqlcipher3.sh [VENV] (default .build/interop-venv).
# Prints the environment's python on success; on failure says what failed and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${1:-.build/interop-venv}"
package="sqlcipher3-binary==0.6.0"
mkdir -p "$(dirname "$venv")"
# Test processes and CI stages may ask at once: one makes it, the others wait for it.
exec 9>"$venv.lock"
flock 9
if ! "$venv/bin/python" -c "import sqlcipher3" >/dev/null 2>&1; then
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        # Debian and Ubuntu ship venv in a package of its own.
        rm -rf "$venv"
        ./Tools/scripts/install-dependencies.sh python3-venv >&2
        python3 -m venv "$venv" >&2
    fi
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "$package" >&2; then
        rm -rf "$venv"
        echo "Could not install $package from PyPI into $venv (see pip's message above): the interoperability tests with Python need it. Check the network or a proxy (PIP_INDEX_URL), then run $0 again." >&2
        exit 1
    fi
    "$venv/bin/python" -c "import sqlcipher3" >&2
fi
case "$venv" in /*) echo "$venv/bin/python" ;; *) echo "$PWD/$venv/bin/python" ;; esac
