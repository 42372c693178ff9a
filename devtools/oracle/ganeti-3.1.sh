#!/usr/bin/env bash
# ganeti-3.1.sh - build a Ganeti 3.1.0 htools oracle from Debian's source.
#
# What it builds: Ganeti's multi-call Haskell binary `htools` (hail, hbal,
# hspace, hsqueeze, hcheck, hinfo, hscan, hroller, harep), installed as
# $PREFIX/bin/htools plus one symlink per program name (the binary picks its
# role from the name it was started under, or from $HTOOLS), and
# $PREFIX/lib/ganeti/iallocators/hail -> ../../../bin/htools.
# Nothing else of Ganeti is built: no daemons, Python code, docs or tests.
#
# Why rc2 + two commits: no Debian release ships Ganeti 3.1.0 itself. Debian
# sid's source package ganeti 3.1.0~rc2-5 is the nearest thing a package
# registry serves (its orig tarball equals upstream tag v3.1.0rc2 for src/,
# app/, regex/, ganeti.cabal, Makefile.am and configure.ac). Between tags
# v3.1.0rc2 and v3.1.0 the Haskell sources change behaviour in exactly two
# commits; everything else there is import/warning cleanup. Neither commit is
# in Debian's debian/patches, so this script re-does them by targeted edits:
#   3c45a5c27  HTools.Node.buildPeers no longer sets failN1 (from free memory);
#              HTools.Loader.updateMemStat sets it instead, as
#              failN1 = unallocatedMem <= rMem (i.e. counting missing memory).
#   837354e98  hscan writes the corrected data (fixdata), not the raw data,
#              to NAME.data.
# It also makes the programs report version 3.1.0 (configure.ac's version
# suffix "~rc2" dropped, vcs-version written as "3.1.0").
#
# Usage (as root, or with sudo available for apt-get and the install):
#   devtools/oracle/ganeti-3.1.sh
# Environment:
#   PREFIX=/opt/ganeti-3.1.0          where bin/ goes
#   ORACLE_DIR=<repo>/target/oracle-3.1   work dir (build tree under build/)
#   ORACLE_SRC_DIR=$ORACLE_DIR/src    download cache for the Debian sources
#   FORCE=1                           rebuild even if installed and unchanged
#   JOBS=2                            GHC parallelism (capped at 2)
# Re-running is cheap: when $PREFIX/bin/htools exists and its stamp matches
# the sources and this recipe, nothing is rebuilt. An interrupted build with
# the same sources resumes in the existing build tree.
set -euo pipefail

START_TS=$(date +%s)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

PREFIX=${PREFIX:-/opt/ganeti-3.1.0}
ORACLE_DIR=${ORACLE_DIR:-$REPO/target/oracle-3.1}
ORACLE_SRC_DIR=${ORACLE_SRC_DIR:-$ORACLE_DIR/src}
BUILD_ROOT=$ORACLE_DIR/build
FORCE=${FORCE:-0}
JOBS=${JOBS:-2}
if [ "$JOBS" -gt 2 ] 2>/dev/null; then JOBS=2; fi

DEB_VERSION=3.1.0~rc2-5
UPSTREAM_DIR=ganeti-3.1.0~rc2
POOL_URL=https://deb.debian.org/debian/pool/main/g/ganeti
# name  sha256  (checked against sid's Sources, and the .dsc's own list)
SOURCES=(
  "ganeti_3.1.0~rc2-5.dsc 93e9ed7cc7afc4221b6bd8ad4bfc4b6f0b0ae4d603dc584f88d9a1337234ab8f"
  "ganeti_3.1.0~rc2.orig.tar.gz ee2834d50f9eb456c1acf48b841fb360ca8322ceda433f6f4878e5cf00bfe1bc"
  "ganeti_3.1.0~rc2-5.debian.tar.xz 74462b3befb5892b53f747eca1e985ec6d51ac14b33ee0924acd602826bb7e6b"
)
PROGRAMS=(hail hbal hspace hsqueeze hcheck hinfo hscan hroller harep)

# Build dependencies of the htools binary alone (bookworm names). The Python
# modules, socat and ip are only there because ./configure insists on them;
# the test-framework libraries because ganeti.cabal's htest executable is
# always checked by `Setup configure` (it is not built).
APT_PACKAGES=(
  ghc cabal-install autoconf automake m4 make dpkg-dev curl ca-certificates xz-utils
  libghc-attoparsec-dev libghc-base64-bytestring-dev
  libghc-case-insensitive-dev libghc-cryptonite-dev libghc-curl-dev
  libghc-hinotify-dev libghc-hslogger-dev libghc-json-dev libghc-lens-dev
  libghc-lifted-base-dev libghc-monad-control-dev libghc-network-dev
  libghc-network-bsd-dev libghc-old-time-dev libghc-parallel-dev
  libghc-random-dev libghc-regex-tdfa-dev libghc-temporary-dev
  libghc-transformers-base-dev libghc-utf8-string-dev libghc-vector-dev
  libghc-zlib-dev
  libghc-test-framework-quickcheck2-dev libghc-test-framework-hunit-dev
  python3 python3-openssl python3-pyparsing python3-pyinotify python3-pycurl
  python3-bitarray socat iproute2
)

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ganeti-3.1.sh: ERROR: %s\n' "$*" >&2; exit 1; }
elapsed() { local s=$(( $(date +%s) - START_TS )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
trap 'rc=$?; if [ $rc -ne 0 ]; then printf "ganeti-3.1.sh: FAILED (exit %d) after %s\n" $rc "$(elapsed)" >&2; fi' EXIT

SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi

# --- 1. build dependencies ----------------------------------------------------
install_deps() {
  local missing=() p
  for p in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "build dependencies: all ${#APT_PACKAGES[@]} present"
    return
  fi
  log "installing ${#missing[@]} missing packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# --- 2. sources -----------------------------------------------------------------
# download NAME SHA256: NAME from the pool into the cache, checked; 1 when the
# pool does not have it.
download() {
  local name=$1 sum=$2
  if [ -f "$ORACLE_SRC_DIR/$name" ] && echo "$sum  $ORACLE_SRC_DIR/$name" | sha256sum -c --status; then
    return 0
  fi
  log "downloading $name"
  curl -fsSL --retry 3 -o "$ORACLE_SRC_DIR/$name.part" "$POOL_URL/$name" || return 1
  echo "$sum  $ORACLE_SRC_DIR/$name.part" | sha256sum -c --status \
    || die "sha256 mismatch for $name (expected $sum)"
  mv "$ORACLE_SRC_DIR/$name.part" "$ORACLE_SRC_DIR/$name"
}

# When sid has moved to a later Debian revision of the same upstream source
# (the pool keeps only the current one), take that revision's .dsc and
# Debian tarball, with the checksums sid's Sources index gives, as long as
# its orig tarball is still the pinned one; otherwise stop.
follow_debian_revision() {
  local orig_name=${SOURCES[1]%% *} orig_sum=${SOURCES[1]##* } stanza version sums
  log "the pool no longer has $DEB_VERSION; looking up sid's current ganeti source"
  stanza=$(curl -fsSL --retry 3 https://deb.debian.org/debian/dists/sid/main/source/Sources.xz \
             | xz -dc | awk -v RS= '/^Package: ganeti\n/ && !seen {print; seen = 1}') \
    || die "cannot read sid's Sources index"
  version=$(printf '%s\n' "$stanza" | sed -n 's/^Version: //p')
  sums=$(printf '%s\n' "$stanza" | awk '/^Checksums-Sha256:/ {c = 1; next} c && /^ / {print $3, $1; next} {c = 0}')
  printf '%s\n' "$sums" | grep -qx "$orig_name $orig_sum" \
    || die "sid's ganeti is now $version, not built from $orig_name: update $0 (SOURCES, DEB_VERSION and the edits)"
  DEB_VERSION=$version
  SOURCES=(
    "$(printf '%s\n' "$sums" | grep "^ganeti_$version.dsc ")"
    "${SOURCES[1]}"
    "$(printf '%s\n' "$sums" | grep "^ganeti_$version.debian.tar.xz ")"
  )
  log "using Debian's $DEB_VERSION (same upstream source)"
}

fetch_sources() {
  mkdir -p "$ORACLE_SRC_DIR"
  local entry
  if ! download "${SOURCES[0]%% *}" "${SOURCES[0]##* }"; then
    follow_debian_revision
  fi
  for entry in "${SOURCES[@]}"; do
    download "${entry%% *}" "${entry##* }" \
      || die "download of $POOL_URL/${entry%% *} failed"
  done
  log "sources verified (sha256) in $ORACLE_SRC_DIR"
}

# --- 3. the 3.1.0 changes ------------------------------------------------------------
# replace_once FILE OLD NEW: replace the literal text OLD, which must occur
# exactly once in FILE, with NEW; fail loudly otherwise.
replace_once() {
  local file=$1
  [ -f "$file" ] || die "edit: $file does not exist"
  OLD=$2 NEW=$3 perl -0777 -e '
    my $f = $ARGV[0];
    open(my $in, "<", $f) or die "cannot read $f: $!\n";
    local $/; my $s = <$in>; close $in;
    my $n = () = $s =~ /\Q$ENV{OLD}\E/g;
    die "expected exactly 1 match, found $n, for:\n$ENV{OLD}\n" unless $n == 1;
    $s =~ s/\Q$ENV{OLD}\E/$ENV{NEW}/;
    open(my $out, ">", "$f.tmp") or die "cannot write $f.tmp: $!\n";
    print $out $s; close $out or die "$!\n";
    rename("$f.tmp", $f) or die "cannot rename $f.tmp: $!\n";
  ' "$file" || die "edit of $file did not apply (see above)"
}

apply_changes() {
  # 3c45a5c27, part 1: buildPeers stops deriving failN1 from fMem.
  replace_once src/Ganeti/HTools/Node.hs \
'      new_failN1 = fMem t < new_rmem
' ''
  replace_once src/Ganeti/HTools/Node.hs \
'       , failN1 = new_failN1
' \
'       -- failN1: set by Loader.updateMemStat (Ganeti 3.1.0, 3c45a5c27)
'
  # 3c45a5c27, part 2: updateMemStat derives failN1 from unallocated memory.
  replace_once src/Ganeti/HTools/Loader.hs \
'  in node3 { Node.pMem = fromIntegral (Node.unallocatedMem node3)
                         / Node.tMem node3 }
' \
'  in node3 { Node.failN1 = Node.unallocatedMem node3 <= Node.rMem node3
           , Node.pMem = fromIntegral (Node.unallocatedMem node3)
                         / Node.tMem node3 }
'
  # 837354e98: hscan saves the corrected cluster data.
  replace_once src/Ganeti/HTools/Program/Hscan.hs \
'  writeFile (oname <.> "data") (serializeCluster cdata)
' \
'  writeFile (oname <.> "data") (serializeCluster fixdata)
'
  # Version 3.1.0 instead of 3.1.0~rc2 / the Debian revision.
  replace_once configure.ac \
'm4_define([gnt_version_suffix], [~rc2])
' \
'm4_define([gnt_version_suffix], [])
'
  echo 3.1.0 > vcs-version

  # Sanity: the old expressions are gone, the new ones present.
  ! grep -q 'new_failN1' src/Ganeti/HTools/Node.hs || die "Node.hs still mentions new_failN1"
  grep -q 'Node.failN1 = Node.unallocatedMem node3 <= Node.rMem node3' src/Ganeti/HTools/Loader.hs \
    || die "Loader.hs edit missing"
  grep -q 'serializeCluster fixdata' src/Ganeti/HTools/Program/Hscan.hs || die "Hscan.hs edit missing"
}

# --- 4. configure and build ---------------------------------------------------------
build_htools() {
  if [ -f Makefile ] && [ -f config.status ]; then
    log "already configured (resuming an earlier build in this tree)"
  else
    log "autogen.sh"
    ./autogen.sh >autogen.log 2>&1 || { tail -20 autogen.log; die "autogen.sh failed"; }
    log "configure"
    # PYTHON: the system interpreter (a pyenv/venv one lacks the Debian modules
    # configure checks for). Monitoring and metadata daemons off: no snap-server.
    ./configure PYTHON=/usr/bin/python3 \
      --prefix="$PREFIX" --localstatedir=/var --sysconfdir=/etc \
      --disable-monitoring --disable-metadata --disable-haskell-tests \
      --with-haskell-pcre=tdfa >configure.log 2>&1 \
      || { rm -f Makefile; tail -20 configure.log; die "configure failed (see $PWD/configure.log)"; }
  fi
  log "make dist/setup-config (generated sources + Cabal configure)"
  make dist/setup-config >make-setup.log 2>&1 \
    || { tail -30 make-setup.log; die "make dist/setup-config failed (see $PWD/make-setup.log)"; }
  # The Makefile's own rule (exe/htools -> dist/app.stamp) runs `Setup build`
  # for every executable (daemons, hs2py, rpc-test, htest); build only the
  # library and the htools executable instead.
  log "Setup build -j$JOBS exe:htools (the long part; log: $PWD/build.log)"
  runhaskell ./Setup build -j"$JOBS" exe:htools >build.log 2>&1 \
    || { tail -40 build.log; die "Setup build failed (see $PWD/build.log)"; }
  [ -x dist/build/htools/htools ] || die "dist/build/htools/htools was not produced"
}

install_htools() {
  local bin=$PREFIX/bin p
  $SUDO install -d "$bin" "$PREFIX/lib/ganeti/iallocators"
  $SUDO install -m 0755 -s dist/build/htools/htools "$bin/htools.new"
  $SUDO mv -f "$bin/htools.new" "$bin/htools"
  for p in "${PROGRAMS[@]}"; do
    $SUDO ln -sfn htools "$bin/$p"
  done
  $SUDO ln -sfn ../../../bin/htools "$PREFIX/lib/ganeti/iallocators/hail"
  printf '%s\n' "$FINGERPRINT" | $SUDO tee "$PREFIX/.ganeti-3.1-oracle.stamp" >/dev/null
}

# --- main ---------------------------------------------------------------------------------
command -v perl >/dev/null || die "perl is required"
install_deps
fetch_sources

# Fingerprint of what the binary depends on: the verified sources and the
# recipe (the functions that edit, build and install).
FINGERPRINT=$( { printf '%s\n' "${SOURCES[@]}" "$PREFIX" "${PROGRAMS[*]}";
                 declare -f replace_once apply_changes build_htools install_htools; } \
               | sha256sum | cut -d' ' -f1)

STAMP=$PREFIX/.ganeti-3.1-oracle.stamp
if [ "$FORCE" != 1 ] && [ -x "$PREFIX/bin/htools" ] && [ -f "$STAMP" ] \
   && [ "$(cat "$STAMP")" = "$FINGERPRINT" ]; then
  ok=1
  for p in "${PROGRAMS[@]}"; do [ -L "$PREFIX/bin/$p" ] || ok=0; done
  if [ $ok = 1 ]; then
    log "up to date: $PREFIX/bin/htools ($("$PREFIX/bin/hbal" --version | head -1)); FORCE=1 rebuilds"
    log "done in $(elapsed)"
    exit 0
  fi
fi

TREE=$BUILD_ROOT/$UPSTREAM_DIR
if [ "$FORCE" = 1 ] || [ ! -f "$TREE/.oracle-fingerprint" ] \
   || [ "$(cat "$TREE/.oracle-fingerprint")" != "$FINGERPRINT" ]; then
  log "unpacking with dpkg-source (Debian patches applied) into $TREE"
  rm -rf "$TREE"
  mkdir -p "$BUILD_ROOT"
  (cd "$BUILD_ROOT" && dpkg-source -x "$ORACLE_SRC_DIR/ganeti_$DEB_VERSION.dsc" "$UPSTREAM_DIR") \
    >"$BUILD_ROOT/dpkg-source.log" 2>&1 \
    || { cat "$BUILD_ROOT/dpkg-source.log"; die "dpkg-source -x failed"; }
  log "applying the v3.1.0rc2..v3.1.0 behavioural changes"
  (cd "$TREE" && apply_changes)
  printf '%s\n' "$FINGERPRINT" > "$TREE/.oracle-fingerprint"
else
  log "reusing build tree $TREE (same sources and recipe)"
fi

cd "$TREE"
build_htools
install_htools
log "installed $PREFIX/bin/htools and ${PROGRAMS[*]} -> htools"
log "$("$PREFIX/bin/hbal" --version | head -1)"
log "build tree: $(du -sh "$TREE" | cut -f1), install: $(du -sh "$PREFIX" | cut -f1)"
log "done in $(elapsed)"
