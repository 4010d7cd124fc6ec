#!/usr/bin/env bash
# Builds SQLCipher 4.6.1 (Debian 13's source package) into .build-sqlcipher4/, once, so the test
# suite can also run against SQLCipher 4 on a machine whose own libsqlcipher is 3.4.1.
#
# - The source comes from Debian's archive through a *private* apt configuration under
#   .build-sqlcipher4/apt/: its own sources list, lists, cache and status. The machine's apt
#   sources are only read, to take the archive URI and keyring of its own Debian release.
# - Configure flags are Debian's (debian/rules of the package): codec, OpenSSL's libcrypto,
#   FTS3/4/5, JSON1, R*Tree, column metadata, secure delete, temp store in memory by default.
# - Result: .build-sqlcipher4/prefix/{lib/libsqlcipher.so*, bin/sqlcipher, lib/pkgconfig/sqlcipher.pc}.
#   Debian's patches give the library the soname libsqlcipher.so.1 (the system's 3.4.1 is .so.0),
#   so a process can only load it through the runtime library path. A second run finds the stamp
#   file and does nothing.
set -euo pipefail

VERSION=4.6.1
SUITE=trixie
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/.build-sqlcipher4"
prefix="$build/prefix"
stamp="$prefix/.built-$VERSION"

if [ -f "$stamp" ]; then
    exit 0
fi

# Build tools: a compiler and make, libcrypto's headers, tclsh (SQLite's build generates sources
# with it), dpkg-source to unpack the package with Debian's patches.
"$root/Tools/scripts/install-dependencies.sh" build-essential libssl-dev tcl dpkg-dev gpgv ca-certificates

# The machine's own Debian archive: the deb822 stanza (or one-line entry) for its release's suite.
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
archive_uri=""
keyring=""
find_archive() {
    local file
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        # One stanza per paragraph; keep the first whose Suites has the release's own codename.
        read -r archive_uri keyring < <(awk -v codename="$codename" '
            BEGIN { RS = ""; FS = "\n" }
            {
                uri = ""; suites = ""; key = ""; types = ""; enabled = "yes"
                for (i = 1; i <= NF; i++) {
                    line = $i
                    if (line ~ /^[ \t]*#/) continue
                    split(line, kv, ":[ \t]*")
                    name = tolower(kv[1]); value = substr(line, length(kv[1]) + 2); sub(/^[ \t]+/, "", value)
                    if (name == "uris") uri = value
                    else if (name == "suites") suites = " " value " "
                    else if (name == "signed-by") key = value
                    else if (name == "types") types = value
                    else if (name == "enabled") enabled = tolower(value)
                }
                split(uri, uris, /[ \t]+/)
                if (enabled != "no" && types ~ /deb/ && index(suites, " " codename " ") && uris[1] != "") {
                    print uris[1], key; exit
                }
            }' "$file")
        [ -n "$archive_uri" ] && return 0
    done
    if [ -f /etc/apt/sources.list ]; then
        read -r archive_uri keyring < <(awk -v codename="$codename" '
            $1 == "deb" {
                key = ""; i = 2
                if ($2 ~ /^\[/) {
                    for (; i <= NF; i++) {
                        if ($i ~ /signed-by=/) { key = $i; sub(/.*signed-by=/, "", key); sub(/\]$/, "", key) }
                        if ($i ~ /\]$/) { i++; break }
                    }
                }
                if ($(i + 1) == codename) { print $i, key; exit }
            }' /etc/apt/sources.list)
    fi
    [ -n "$archive_uri" ]
}
if [ -z "$codename" ] || ! find_archive; then
    echo "Cannot find this machine's Debian archive in its apt sources (release '${codename:-unknown}')." >&2
    echo "Building SQLCipher $VERSION needs Debian's source package '$SUITE' from it; on other systems link your own SQLCipher 4 instead." >&2
    exit 1
fi
keyring="${keyring:-/usr/share/keyrings/debian-archive-keyring.gpg}"

# The private apt configuration: nothing of the machine's lists, cache or status is used or changed.
apt_dir="$build/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sourceparts" "$apt_dir/preferences.d"
touch "$apt_dir/status"
printf 'deb-src [signed-by=%s] %s %s main\n' "$keyring" "$archive_uri" "$SUITE" > "$apt_dir/sources.list"
apt_options=(
    -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=$apt_dir/sourceparts"
    -o "Dir::Etc::PreferencesParts=$apt_dir/preferences.d"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::State::status=$apt_dir/status"
    -o "Dir::Cache=$apt_dir/cache"
    -o "Acquire::Languages=none"
)
# As root, apt drops to the _apt user to download, who cannot write into this checkout.
[ "$(id -u)" -eq 0 ] && apt_options+=(-o "APT::Sandbox::User=root")

echo "Fetching Debian's source package of SQLCipher $VERSION ($SUITE)…" >&2
src="$build/src"
mkdir -p "$src"
apt-get "${apt_options[@]}" -qq update
# The Debian revision of $VERSION that the archive has (e.g. 4.6.1-2).
debian_version="$(apt-cache "${apt_options[@]}" showsrc sqlcipher | awk -v v="$VERSION" '$1 == "Version:" && index($2, v "-") == 1 { print $2; exit }')"
if [ -z "$debian_version" ]; then
    echo "Debian's '$SUITE' has no source package of SQLCipher $VERSION any more; update VERSION/SUITE in $0." >&2
    exit 1
fi
(cd "$src" && apt-get "${apt_options[@]}" -qq source --download-only "sqlcipher=$debian_version")
dsc="$(ls "$src"/sqlcipher_"$VERSION"*.dsc | head -n 1)"
rm -rf "$src/sqlcipher-$VERSION"
(cd "$src" && dpkg-source --no-check -x "$dsc" "sqlcipher-$VERSION" >/dev/null)

echo "Building SQLCipher $VERSION into $prefix (a few minutes)…" >&2
rm -rf "$prefix"
cd "$src/sqlcipher-$VERSION"
# CFLAGS and configure options as in the package's debian/rules (without debug info).
CFLAGS="-O2 -fno-strict-aliasing -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA \
-DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1 -DSQLITE_ENABLE_UNLOCK_NOTIFY \
-DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1 -DSQLITE_MAX_SCHEMA_RETRY=25 \
-DSQLITE_HAS_CODEC -DHAVE_USLEEP=1 -DSQLCIPHER_CRYPTO_OPENSSL" \
LDFLAGS="-lcrypto" \
    ./configure --prefix="$prefix" --enable-threadsafe --enable-tempstore --enable-fts4 --enable-fts5 \
        --enable-json --enable-load-extension --disable-tcl >"$build/configure.log" 2>&1 \
    || { echo "configure failed; see $build/configure.log" >&2; exit 1; }
make -j"$(nproc)" >"$build/make.log" 2>&1 || { echo "make failed; see $build/make.log" >&2; exit 1; }
make install >>"$build/make.log" 2>&1 || { echo "make install failed; see $build/make.log" >&2; exit 1; }

# Check the result is what the tests rely on: SQLCipher 4 with the codec, loaded from here.
version="$(LD_LIBRARY_PATH="$prefix/lib" "$prefix/bin/sqlcipher" :memory: 'PRAGMA cipher_version;')"
case "$version" in
    "$VERSION"*) ;;
    *) echo "The built shell reports SQLCipher '$version', not $VERSION." >&2; exit 1 ;;
esac
pc="$prefix/lib/pkgconfig/sqlcipher.pc"
[ -f "$pc" ] || { echo "No sqlcipher.pc in $prefix/lib/pkgconfig." >&2; exit 1; }
# CipherStore includes <sqlcipher/sqlite3.h>: the include folder itself must come first, or the
# compiler takes the system's 3.4.1 header from /usr/include/sqlcipher.
sed -i 's|^Cflags:.*|Cflags: -I${includedir} -I${includedir}/sqlcipher|' "$pc"
touch "$stamp"
echo "SQLCipher $version in $prefix" >&2
