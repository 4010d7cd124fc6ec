#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages named as arguments when they are missing:
# with apt-get as root, with sudo when it is available, otherwise it stops and prints the command.
set -euo pipefail

missing=()
for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

command="apt-get install -y ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "Missing packages: ${missing[*]}. Install SQLCipher and its shell with your package manager (e.g. 'brew install sqlcipher')." >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    echo "Installing ${missing[*]}…" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $command >/dev/null
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "Installing ${missing[*]} with sudo…" >&2
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive $command >/dev/null
else
    echo "Missing packages: ${missing[*]}. Run this, then try again:" >&2
    echo "  sudo apt-get update && sudo $command" >&2
    exit 1
fi
