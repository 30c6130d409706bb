# Shared by tools/build-windows.sh and tools/build-web.sh (sourced, bash): Debian's source packages of the
# libraries, built once per cache key into $CACHE. The caller sets CACHE (after deps_versions) and defines
#   dep_cmake SRC_DIR BUILD_DIR cmake-args...   its toolchain's configure + build + install of one library;
# a library built another way (autotools, a makefile) names its builder: DEP_BUILDER=dep_autotools build_dep ...
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# The long builds run niced, beside a developer's other work; MHA_NICE= (empty) runs them at the caller's
# priority (.ci/run: a CI run is timed by its builds, and nice made them crawl on a shared, loaded machine).
NICE=${MHA_NICE-nice}

say() { printf '== %s\n' "$*"; }

# deb-src lines in a sources file of our own (the same mirrors as the system's deb lines), once.
deps_enable_sources() {
    local src_file=/etc/apt/sources.list.d/mha-tracer-deb-src.sources tmp f
    apt-cache showsrc --only-source libsdl2 2>/dev/null | grep -q '^Version:' && return 0
    say "enabling deb-src in $src_file"
    tmp=$(mktemp)
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && [ "$f" != "$src_file" ] || continue
        # deb822 stanzas: keep those with "deb" in Types, as deb-src.
        awk 'BEGIN{RS=""; ORS="\n\n"} /(^|\n)Types:[^\n]*deb([ \n]|$)/ {
                 gsub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print }' "$f" >>"$tmp"
    done
    if [ -f /etc/apt/sources.list ]; then
        # one-line format: "deb [opts] uri suite comps" -> a deb822 stanza
        awk '$1=="deb" { i=2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                         comps=""; for (j=i+2; j<=NF; j++) comps=comps (comps==""?"":" ") $j
                         printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n\n", $i, $(i+1), comps }' \
            /etc/apt/sources.list >>"$tmp"
    fi
    $SUDO install -m 644 "$tmp" "$src_file"
    rm -f "$tmp"
    $SUDO apt-get update -qq
}

# deps_install PKG...: the Debian packages not installed yet.
deps_install() {
    local missing="" p
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
    [ -z "$missing" ] && return 0
    say "installing$missing"
    $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# deps_versions PKG...: VER[PKG] = the newest source version; appends " PKG=VERSION" to key_text.
declare -A VER
deps_versions() {
    local p
    for p in "$@"; do
        VER[$p]=$(apt-cache showsrc --only-source "$p" | sed -n 's/^Version: //p' | sort -V | tail -1)
        [ -n "${VER[$p]}" ] || { echo "no source package $p" >&2; exit 1; }
        key_text="$key_text $p=${VER[$p]}"
    done
}

deps_fetch() { # deps_fetch PKG -> prints the unpacked source directory
    local p=$1 d="$CACHE/src/$1"
    if [ ! -f "$d/.unpacked" ]; then
        rm -rf "$d" && mkdir -p "$d"
        if ! (cd "$d" && apt-get source -qq --only-source "$p=${VER[$p]}" >"$d.log" 2>&1); then
            # A mirror that lacks the Debian part (a 1.0 source's .diff.gz) but has the upstream tarball: that
            # tarball unpacked, as the library's authors released it (said, as it is not Debian's source).
            local orig
            orig=$(find "$d" -maxdepth 1 -name "*.orig.tar.*" | head -1)
            [ -n "$orig" ] && grep -q "Not Found" "$d.log" && (cd "$d" && tar xf "$orig") \
                || { tail -5 "$d.log" >&2; echo "apt-get source $p failed" >&2; return 1; }
            say "$p: the mirror lacks Debian's changes to it; building its upstream tarball $(basename "$orig")" >&2
        fi
        touch "$d/.unpacked"
    fi
    find "$d" -mindepth 1 -maxdepth 1 -type d | head -1
}

build_dep() { # build_dep PKG cmake-args...: once per cache key (a stamp file says it is complete)
    local p=$1
    shift
    [ -f "$CACHE/stamp-$p" ] && return 0
    local t0=$SECONDS src
    src=$(deps_fetch "$p")
    say "building $p ${VER[$p]}"
    mkdir -p "$CACHE/build"
    rm -rf "$CACHE/build/$p"
    ${DEP_BUILDER:-dep_cmake} "$src" "$CACHE/build/$p" "$@"
    echo "$p ${VER[$p]} $((SECONDS - t0)) s" >"$CACHE/stamp-$p"
    say "$p: $((SECONDS - t0)) s"
}
