#!/usr/bin/env bash
# make e2e: hailstone inside a real Ganeti 3.0.2 cluster.
#
# Builds the Debian package (make deb) and installs it, builds the lab
# cluster of ../shared/tools/ganeti-lab (each node in its own Linux
# namespaces, fake hypervisor), and runs every allocator operation Ganeti
# can carry out there through Ganeti's own commands: instance creation
# (diskless, file, sharedfile; plain and drbd up to Ganeti's acceptance of
# the answer, since this kernel has neither device-mapper nor DRBD),
# migrate and failover, node evacuation, group change, batch creation and
# RAPI creation with the cluster's default allocator. It checks that Ganeti
# put every instance where hailstone's answer said and that the jobs
# succeeded; every request Ganeti sent is captured and answered again by
# hail 3.0.2, which must give the same bytes, and Ganeti's own client code
# (ganeti_validate.py) must accept each answer. Last, hailstone-shadow
# becomes the default allocator: hail answers Ganeti, hailstone is
# recorded, and the report must show every answer identical; a refusing
# stub reference, primary=hailstone and the htools in the shadow (hbal -L
# -C, hcheck -L) are checked too. Then the lab is torn down
# and the package removed (unless it was installed before).
#
# Environment:
#   HAILSTONE_E2E=skip   say so and succeed without running (for machines
#                        that cannot create namespaces; CI must ask for it)
#   E2E_KEEP=1           leave the lab running at the end (for debugging)
#   GANETI_LAB=DIR       the lab scripts (default ../shared/tools/ganeti-lab)
#   E2E_DIR=DIR          captures and logs (default target/e2e)
set -u
cd "$(dirname "$0")/../.."
REPO=$(pwd)
LAB=${GANETI_LAB:-$REPO/../shared/tools/ganeti-lab}
VALIDATE=${GANETI_VALIDATE:-$(dirname "$LAB")/ganeti_validate.py}
OUT=${E2E_DIR:-$REPO/target/e2e}
CAP=$OUT/captures
HAIL=/usr/lib/ganeti/iallocators/hail
PACKAGED=/usr/lib/ganeti/iallocators/hailstone
WRAPPER=/usr/local/lib/ganeti/iallocators/hailstone
EXPECT="/usr/bin/python3 $REPO/tests/e2e/expect.py"
D=example.com

if [ "${HAILSTONE_E2E:-}" = skip ]; then
  echo "=== e2e SKIPPED: HAILSTONE_E2E=skip was set; nothing was tested"
  exit 0
fi

failures=0
started=$(date +%s)
say()  { echo "=== e2e [$(( $(date +%s) - started ))s] $*"; }
failed=()
details=()
fail() { echo "=== e2e FAILED: $*"; failures=$((failures + 1)); failed+=("$*"); }
die()  { echo "=== e2e CANNOT RUN: $*"; echo "=== (set HAILSTONE_E2E=skip to skip it on purpose)"; exit 1; }

# --- can this machine run the lab at all? --------------------------------
[ "$(id -u)" = 0 ] || die "needs root (Linux namespaces, packages, loop devices)"
[ -d "$LAB" ] || die "the lab scripts are not at $LAB (GANETI_LAB=...)"
[ -f "$VALIDATE" ] || die "Ganeti's answer checker is not at $VALIDATE"
unshare --net --uts --mount --propagation private true 2>/dev/null ||
  die "this machine cannot create network/UTS/mount namespaces (unshare failed)"
command -v nsenter >/dev/null || die "nsenter (util-linux) is missing"

# shellcheck source=/dev/null
. "$LAB/gnt-lab-lib.sh"

# --- the package ----------------------------------------------------------
say "building the Debian package (make deb)"
make --no-print-directory deb || die "make deb failed"
DEB=$(ls -t target/deb/hailstone_*.deb | head -n 1)
had_package=no
dpkg -s hailstone >/dev/null 2>&1 && had_package=yes

cleanup() {
  if [ "${E2E_KEEP:-}" = 1 ]; then
    say "E2E_KEEP=1: the lab and the package stay"
    return
  fi
  say "teardown"
  rm -f "$WRAPPER"
  # The htools' names are the originals' again, whatever happened.
  [ ! -x /usr/bin/hailstone-htools ] || /usr/bin/hailstone-htools disable >/dev/null ||
    fail "hailstone-htools disable"
  "$LAB/teardown.sh" --purge >"$OUT/teardown.log" 2>&1 || fail "teardown.sh --purge (see $OUT/teardown.log)"
  if [ "$had_package" = no ] && dpkg -s hailstone >/dev/null 2>&1; then
    dpkg -r hailstone >/dev/null || fail "dpkg -r hailstone"
  fi
  # Nothing of the lab may be left.
  local left
  left=$(ls "$GNT_LAB" 2>/dev/null)
  [ -z "$left" ] || fail "the lab state $GNT_LAB is still there"
  left=$(pgrep -f 'ganeti-(noded|luxid|wconfd|confd|rapi|mond)' || true)
  [ -z "$left" ] || fail "Ganeti daemons still running: $left"
  [ ! -e "$WRAPPER" ] || fail "$WRAPPER is still there"
  if [ "$had_package" = no ] && dpkg -s hailstone >/dev/null 2>&1; then
    fail "the hailstone package is still installed"
  fi
}

rm -rf "$OUT"
mkdir -p "$CAP"

# --- a fresh one-node cluster --------------------------------------------
if node_alive 1; then
  say "a lab is running: tearing it down first"
  "$LAB/teardown.sh" --purge >"$OUT/teardown-before.log" 2>&1 || die "teardown.sh --purge failed"
fi
trap 'cleanup; exit 1' EXIT
say "setting up node1 (setup-single-node.sh)"
"$LAB/setup-single-node.sh" >"$OUT/setup.log" 2>&1 || die "setup-single-node.sh failed (see $OUT/setup.log)"

say "installing $DEB"
dpkg -i "$DEB" >"$OUT/dpkg.log" 2>&1 || die "dpkg -i $DEB failed (see $OUT/dpkg.log)"
[ -x "$PACKAGED" ] || die "the package did not install $PACKAGED"
for f in /usr/bin/hailstone-balance /usr/bin/hailstone-squeeze /usr/bin/hailstone-groups \
         /usr/bin/hailstone-space /usr/bin/hailstone-check /usr/bin/hailstone-info /usr/bin/hailstone-scan /usr/bin/hailstone-roll /usr/bin/hailstone-repair \
         /usr/share/man/man1/hailstone-check.1.gz /usr/share/man/man1/hailstone-info.1.gz /usr/share/man/man1/hailstone-repair.1.gz \
         /usr/share/man/man1/hailstone.1.gz /usr/share/bash-completion/completions/hailstone \
         /usr/lib/ganeti/iallocators/hailstone-shadow /usr/share/man/man1/hailstone-shadow.1.gz; do
  [ -e "$f" ] || fail "the package did not install $f"
done
zcat /usr/share/man/man1/hailstone.1.gz | sed 's/\\-/-/g' | grep -q -- '--no-capacity-checks' ||
  fail "man hailstone does not list --no-capacity-checks"

# g ARGS...: a command on the master, its output in $OUT/last.log and
# appended to $OUT/commands.log; its status.
g() {
  local rc
  echo "# $*" >"$OUT/last.log"
  nx 1 "$@" >>"$OUT/last.log" 2>&1
  rc=$?
  cat "$OUT/last.log" >>"$OUT/commands.log"
  return $rc
}
# Newest capture (call prefix) after marker file $1, or nothing.
calls_since() { find "$CAP" -name '*.answer.json' -newer "$1" | sort | sed 's/\.answer\.json$//'; }
# Checks that every instance an answer placed is where the answer said.
check_placed() {
  local call=$1 name nodes actual
  while read -r name nodes; do
    [ -n "$name" ] || continue
    actual=$(nx 1 gnt-instance list --no-headers --separator=' ' -o pnode,snodes "$name" | sed 's/ *$//; s/,/ /g')
    if [ "$actual" != "$nodes" ]; then
      fail "$name is on '$actual', hailstone's answer ($(basename "$call")) said '$nodes'"
    fi
  done < <($EXPECT placements "$call")
}
# op DESCRIPTION EXPECT COMMAND...: runs a Ganeti command that must call
# the allocator once or more; EXPECT is 'ok' (the command and its jobs
# succeed and instances are where the answers said) or 'accepted' (Ganeti
# accepted the answer; the disk work after it fails on this kernel).
op() {
  local what=$1 want=$2 mark rc calls
  shift 2
  mark=$(mktemp "$OUT/mark.XXXXXX")
  sleep 0.01
  g "$@"; rc=$?
  calls=$(calls_since "$mark")
  rm -f "$mark"
  if [ -z "$calls" ]; then
    fail "$what: Ganeti did not call hailstone (rc $rc; see $OUT/commands.log)"
    return
  fi
  case $want in
    ok)
      [ "$rc" = 0 ] || fail "$what: rc $rc (see $OUT/commands.log)"
      local c
      for c in $calls; do check_placed "$c"; done
      ;;
    accepted)
      local c
      for c in $calls; do
        $EXPECT accepted "$c" "$OUT/last.log" ||
          fail "$what: Ganeti's output does not show the nodes of hailstone's answer $(basename "$c") (see $OUT/commands.log)"
      done
      ;;
  esac
  say "$what: rc $rc, $(echo "$calls" | wc -w) call(s): $(for c in $calls; do $EXPECT describe "$c"; done | tr '\n' ';')"
}

ADD="gnt-instance add -o noop --no-name-check --no-ip-check"

# --- one node: the packaged allocator as the cluster default --------------
# Ganeti can only pass key=value parameters; hailstone's flags take =yes.
# The explanations go to a directory that does not exist yet (made by
# hailstone, as on a master candidate's first run as master).
g gnt-cluster modify -I hailstone \
  --default-iallocator-params=no-capacity-checks=yes,explain=/var/log/ganeti/hailstone,explain-keep=5000 ||
  fail "gnt-cluster modify -I hailstone"
g $ADD -t diskless inst11.$D || fail "one node: gnt-instance add with the default allocator hailstone"
[ "$(nx 1 gnt-instance list --no-headers -o pnode inst11.$D)" = node1.$D ] ||
  fail "one node: inst11 is not on node1"
g sh -c "grep -l '^verdict: inst11.$D goes to node1.$D in group default' /var/log/ganeti/hailstone/*Z-allocate-inst11.$D.txt" ||
  fail "one node: no explanation of inst11 in /var/log/ganeti/hailstone"
g gnt-cluster modify --default-iallocator-params= || fail "resetting the iallocator parameters"
say "one node: created inst11 with the packaged hailstone as cluster default"

# --- from here every call goes through a capturing wrapper ----------------
# Ganeti searches /usr/local/lib/ganeti/iallocators first; the wrapper keeps
# each request, then runs the packaged binary.
mkdir -p "$(dirname "$WRAPPER")"
cat >"$WRAPPER" <<EOF
#!/bin/sh
# hailstone e2e: capture each call, then run the packaged hailstone.
call=$CAP/\$(date +%s%N)-\$\$
cp "\$1" "\$call.request.json"
shift
printf '%s\n' "\$@" > "\$call.args"
$PACKAGED "\$call.request.json" "\$@" > "\$call.answer.json"
rc=\$?
cat "\$call.answer.json"
exit \$rc
EOF
chmod 0755 "$WRAPPER"

for n in 2 3 4; do
  say "adding node$n"
  "$LAB/add-node.sh" "$n" >"$OUT/add-node$n.log" 2>&1 || die "add-node.sh $n failed (see $OUT/add-node$n.log)"
done
# About 6 instances per node fit the default vcpu ratio of this machine.
g gnt-cluster modify --ipolicy-vcpu-ratio=32 || fail "raising the vcpu ratio"

# --- single-instance allocation --------------------------------------------
op "allocate diskless (-I)" ok $ADD -I hailstone -t diskless inst12.$D
op "allocate diskless (cluster default)" ok $ADD -t diskless inst13.$D
op "allocate file" ok $ADD -I hailstone -t file --disk 0:size=1G inst14.$D
# A file instance cannot be relocated, and Ganeti refuses a whole node
# evacuation when one instance cannot move: the evacuations below must not
# depend on where live memory figures put it.
g gnt-instance remove -f inst14.$D || fail "removing inst14"
op "allocate sharedfile" ok $ADD -I hailstone -t sharedfile --disk 0:size=1G inst15.$D
op "allocate sharedfile (cluster default)" ok $ADD -t sharedfile --disk 0:size=2G -B memory=512 inst16.$D
op "allocate diskless 1 GiB" ok $ADD -I hailstone -t diskless -B memory=1024 inst17.$D
# Ganeti 3.1's semantics through the cluster's iallocator parameters, as
# the README sets them; compared with hail 3.0.2 below, which answers the
# same where no node's report and records disagree.
g gnt-cluster modify --default-iallocator-params=ganeti-version=3.1 ||
  fail "gnt-cluster modify --default-iallocator-params=ganeti-version=3.1"
op "allocate diskless (cluster default, ganeti-version=3.1)" ok $ADD -t diskless inst31.$D
grep -lx -- "--ganeti-version=3.1" "$CAP"/*.args >/dev/null ||
  fail "ganeti-version=3.1: Ganeti did not pass --ganeti-version=3.1 to hailstone"
g gnt-cluster modify --default-iallocator-params= || fail "resetting the iallocator parameters"
g gnt-instance remove -f inst31.$D || fail "removing inst31"

# --- relocate: migrate and failover ---------------------------------------
op "migrate -I (sharedfile)" ok gnt-instance migrate -f -I hailstone inst15.$D
op "failover -I (diskless)" ok gnt-instance failover -f -I hailstone inst12.$D

# --- node evacuation of primaries -----------------------------------------
victim=$(nx 1 gnt-instance list --no-headers --separator=' ' -o pnode,disk_template |
  awk '$2 != "file" {n[$1]++} $2 == "file" {bad[$1] = 1}
       END {for (x in n) if (!bad[x]) print n[x], x}' | sort -rn | head -n 1 | cut -d' ' -f2)
op "node-evacuate --primary-only $victim" ok gnt-node evacuate -f -I hailstone --primary-only "$victim"

# --- multi-allocate -------------------------------------------------------
batch=$OUT/batch.json
cat >"$batch" <<EOF
[
 {"instance_name": "inst18.$D", "mode": "create", "disk_template": "diskless",
  "disks": [], "nics": [{}], "os_type": "noop", "hypervisor": "fake",
  "ip_check": false, "name_check": false, "start": false, "beparams": {"memory": 256}},
 {"instance_name": "inst19.$D", "mode": "create", "disk_template": "sharedfile",
  "disks": [{"size": 1024}], "nics": [{}], "os_type": "noop", "hypervisor": "fake",
  "ip_check": false, "name_check": false, "start": false}
]
EOF
op "batch-create (multi-allocate)" ok gnt-instance batch-create -I hailstone "$batch"

# --- RAPI creation with the cluster's default allocator -------------------
mark=$(mktemp "$OUT/mark.XXXXXX")
job=$(nx 1 curl -sk -u labadmin:labsecret -X POST -H 'Content-Type: application/json' \
  -d '{"__version__": 1, "mode": "create", "name": "inst20.'$D'", "disk_template": "diskless",
       "disks": [], "nics": [{}], "os": "noop", "hypervisor": "fake",
       "ip_check": false, "name_check": false, "start": false}' \
  https://127.0.0.1:5080/2/instances)
if [[ "$job" =~ ^\"?[0-9]+\"?$ ]]; then
  job=${job//\"/}
  g gnt-job watch "$job"
  status=$(nx 1 gnt-job list --no-headers -o status "$job")
  [ "$status" = success ] || fail "RAPI creation: job $job is $status"
  calls=$(calls_since "$mark")
  [ -n "$calls" ] || fail "RAPI creation: hailstone was not called"
  for c in $calls; do check_placed "$c"; done
  say "RAPI POST /2/instances: job $job $status"
else
  fail "RAPI creation: no job id ($job)"
fi
rm -f "$mark"

# --- group change -----------------------------------------------------------
g gnt-group add g2 || fail "gnt-group add g2"
g gnt-group assign-nodes g2 node3.$D node4.$D || fail "assigning node3 and node4 to g2"
mover=$(nx 1 gnt-instance list --no-headers --separator=' ' -o name,pnode,disk_template |
  awk '($2 == "node1.'$D'" || $2 == "node2.'$D'") && $3 != "file" {print $1; exit}')
op "change-group $mover --to g2" ok gnt-instance change-group -I hailstone --to g2 "$mover"
[ "$(nx 1 gnt-instance list --no-headers -o pnode.group "$mover")" = g2 ] ||
  fail "change-group: $mover is not in g2"
op "node-evacuate --primary-only node3 (g2)" ok gnt-node evacuate -f -I hailstone --primary-only node3.$D
g gnt-group assign-nodes default node3.$D node4.$D || fail "assigning node3 and node4 back"
g gnt-group remove g2 || fail "gnt-group remove g2"

if ! g gnt-cluster verify --ignore-errors=ENODESETUP; then
  fail "gnt-cluster verify (see $OUT/commands.log)"
fi
failed_jobs=$(nx 1 gnt-job list --no-headers -o id,status | awk '$2 != "success" {print $1}')
[ -z "$failed_jobs" ] || fail "jobs that did not succeed: $(echo $failed_jobs)"

# --- the planners on the live cluster ---------------------------------------
PLANNER_BIN=/usr/bin
RAPI=https://labadmin:labsecret@127.0.0.1:5080
# p ARGS...: a packaged planner on the master, stdout in $OUT/p.out,
# stderr in $OUT/p.err; its status.
p() { nx 1 "$@" >"$OUT/p.out" 2>"$OUT/p.err"; }
# Instances where a plan's commands (-C) put them: "migrate|failover -f -n
# NODE INST" lines, the last move of each instance winning.
check_moves() {
  local what=$1 plan=$2 inst node actual n=0
  while read -r inst node; do
    n=$((n + 1))
    actual=$(nx 1 gnt-instance list --no-headers -o pnode "$inst")
    [ "$actual" = "$node" ] || [ "$actual" = "$node.$D" ] ||
      fail "$what: $inst is on $actual, the plan moved it to $node"
  done < <(awk '$1 == "gnt-instance" && ($2 == "migrate" || $2 == "failover") && $4 == "-n" {last[$6] = $5}
               END {for (i in last) print i, last[i]}' "$plan" | sort)
  [ "$n" -gt 0 ] || fail "$what: the plan moved nothing"
  # Not echoed: a caller's $(...) would run this in a subshell, where a
  # fail() is not counted.
  MOVED=$n
}

g gnt-cluster modify --node-parameters oob_program="$REPO/tests/e2e/oob-power" ||
  fail "setting the out-of-band program"
# Read live and from the state saved by the same run: the same plan, and
# hbal's plan on that saved state.
for source in "-L" "-m $RAPI"; do
  label=${source%% *}
  p $PLANNER_BIN/hailstone-balance $source -C -S "$OUT/live$label" ||
    fail "hailstone-balance $label: rc $? ($(head -c 300 "$OUT/p.err"))"
  cp "$OUT/p.out" "$OUT/live$label.plan"
  p $PLANNER_BIN/hailstone-balance -t "$OUT/live$label.original" -C ||
    fail "hailstone-balance -t (saved by $label): rc $?"
  cmp -s "$OUT/p.out" "$OUT/live$label.plan" ||
    fail "hailstone-balance $label and -t of the state it saved give different plans"
  p /usr/lib/ganeti/3.0/usr/bin/hbal -t "$OUT/live$label.original" -C ||
    fail "hbal -t (saved by $label): rc $?"
  cmp -s "$OUT/p.out" "$OUT/live$label.plan" ||
    fail "hailstone-balance $label and hbal on the state it read give different plans"
  p $PLANNER_BIN/hailstone-squeeze ${source/-m*/-L} -C -S "$OUT/sq$label" ||
    fail "hailstone-squeeze: rc $?"
  cp "$OUT/p.out" "$OUT/sq$label.plan"
  p /usr/lib/ganeti/3.0/usr/bin/hsqueeze -t "$OUT/sq$label.original" -C || fail "hsqueeze -t: rc $?"
  cmp -s "$OUT/p.out" "$OUT/sq$label.plan" ||
    fail "hailstone-squeeze -L and hsqueeze on the state it read give different plans"
done
say "planners: -L and -m read the live cluster; plans equal to those from the saved state and to hbal's and hsqueeze's"

# The package declares what it runs: with a PATH of only the programs that
# the packages named in its Depends install, -m reads RAPI and gives the
# plan hbal gives on the state it saved; with an empty PATH (no curl) it
# must fail, so the PATH is what is tested.
declared="$OUT/declared-bin"
rm -rf "$declared" "$OUT/empty-bin"; mkdir -p "$declared" "$OUT/empty-bin"
depends=$(dpkg-deb -f "$DEB" Depends | sed 's/([^)]*)//g; s/|[^,]*//g; s/,/ /g')
for pkg in $depends; do
  dpkg -L "$pkg" 2>/dev/null | grep -E '^(/usr)?/s?bin/[^/]+$' | while read -r f; do
    [ -f "$f" ] && [ -x "$f" ] && ln -sf "$f" "$declared/"
  done
done
if p env -i PATH="$declared" $PLANNER_BIN/hailstone-balance -m "$RAPI" -C -S "$OUT/declared"; then
  cp "$OUT/p.out" "$OUT/declared.plan"
  p /usr/lib/ganeti/3.0/usr/bin/hbal -t "$OUT/declared.original" -C
  cmp -s "$OUT/p.out" "$OUT/declared.plan" &&
    say "declared dependencies: with only the programs of $(echo $depends | sed 's/ /, /g') on its PATH ($(ls "$declared" | xargs | sed "s/ /, /g")), hailstone-balance -m read RAPI and planned as hbal on the state it read" ||
    fail "declared dependencies: hailstone-balance -m and hbal on the state it read give different plans"
else
  fail "declared dependencies: hailstone-balance -m with only the programs of $depends on its PATH: rc $? ($(head -c 300 "$OUT/p.err"))"
fi
p env -i PATH="$OUT/empty-bin" $PLANNER_BIN/hailstone-balance -m "$RAPI" -C &&
  fail "hailstone-balance -m read RAPI with no program on its PATH: the declared-dependency check above tests nothing"

# The checkers and the scanner on the live cluster: hcheck's, hinfo's and
# hscan's bytes (and files) and exit status (hcheck exits 1 when the
# cluster needs rebalancing). The lab's nodes report their free memory
# live and it drifts by a few MB between two reads, so each pair runs back
# to back up to five times and must agree once.
# hscan's data file and summary line carry the nodes' free memory and free
# disk, which drift on the lab (memory falls by about 20 MB a run), so for
# the scanner they are masked (a node line's fourth and sixth fields; the
# summary's f_mem, f_disk and score) before the comparison, and everything
# else must be equal. The last try's files stay in $OUT/scan-last.
mask_free_memory() {
  local f
  for f in "$OUT"/scan-ours/*.data "$OUT"/scan-theirs/*.data; do
    [ -e "$f" ] && awk -F'|' -v OFS='|' 'NF >= 10 && $8 ~ /^[A-Z]$/ {$4 = "FREE"; $6 = "FREE"} {print}' "$f" >"$f.masked"
  done
  for f in "$OUT/hailstone-scan.out" "$OUT/hscan.out"; do
    [ -e "$f" ] && awk 'NR > 1 && NF == 10 {$7 = "FREE"; $9 = "FREE"; $10 = "SCORE"} {print}' "$f" >"$f.masked" && mv "$f.masked" "$f"
  done
}
# The checkers' scores and coefficients and the loader's "missing memory"
# warning follow the same drift: on the live runs they are masked (integer
# counts are not; the missing amounts can be negative, when a node reports
# more free memory than its total less its instances'); the file
# hailstone-scan saved is then read with -t by both sides, where every
# byte must match.
mask_drift() {
  local f
  for f in "$@"; do
    sed -E 's/[0-9]+\.[0-9]+/F/g; s/missing -?[0-9]+ MB ram and -?[0-9]+ GB disk/missing N MB ram and N GB disk/g' "$f" >"$f.masked" && mv "$f.masked" "$f"
  done
}
# live_pair OURS THEIRS ARGS...: 0 when both printed the same.
live_pair() {
  local ours=$1 theirs=$2 try rc_ours rc_theirs
  shift 2
  for try in 1 2 3 4 5; do
    rm -rf "$OUT/scan-ours" "$OUT/scan-theirs"; mkdir -p "$OUT/scan-ours" "$OUT/scan-theirs"
    p $PLANNER_BIN/$ours -L "${@//@DIR@/$OUT/scan-ours}"; rc_ours=$?
    cp "$OUT/p.out" "$OUT/$ours.out"; cp "$OUT/p.err" "$OUT/$ours.err"
    p /usr/lib/ganeti/3.0/usr/bin/$theirs -L "${@//@DIR@/$OUT/scan-theirs}"; rc_theirs=$?
    cp "$OUT/p.out" "$OUT/$theirs.out"; cp "$OUT/p.err" "$OUT/$theirs.err"
    if [ "$ours" = hailstone-scan ]; then
      mask_free_memory
      rm -rf "$OUT/scan-last"; mkdir -p "$OUT/scan-last"
      cp -r "$OUT/scan-ours" "$OUT/scan-theirs" "$OUT/scan-last/"
    fi
    mask_drift "$OUT/$ours.out" "$OUT/$ours.err" "$OUT/$theirs.out" "$OUT/$theirs.err"
    [ "$rc_ours" = "$rc_theirs" ] && cmp -s "$OUT/$ours.out" "$OUT/$theirs.out" &&
      cmp -s "$OUT/$ours.err" "$OUT/$theirs.err" &&
      diff -r -x '*.data' "$OUT/scan-ours" "$OUT/scan-theirs" >/dev/null && return 0
  done
  live_difference "$ours" "$theirs" "$rc_ours" "$rc_theirs"
  [ "$ours" != hailstone-scan ] && same_on_snapshot "$ours" "$theirs" "$@"
}
# live_difference OURS THEIRS RC_OURS RC_THEIRS: the last try's difference
# in a few lines, kept for the end of the log (CI shows its tail).
live_difference() {
  local f line
  details+=("$1 rc $3, $2 rc $4 (last of 5 live tries)")
  for f in out err; do
    cmp -s "$OUT/$1.$f" "$OUT/$2.$f" && continue
    while IFS= read -r line; do details+=("  std$f: $line"); done \
      < <(diff "$OUT/$1.$f" "$OUT/$2.$f" | head -n 12)
  done
}
# same_on_snapshot OURS THEIRS ARGS...: when the live outputs never agreed
# (the cluster moved between the two reads: free memory drifts, the
# watcher restarts instances), both read one snapshot that hailstone-scan
# takes now (its reader agrees with hscan's, above or below), with -t: 0
# when every byte and the exit status are equal. Both differences stay in
# $OUT and in the log.
same_on_snapshot() {
  local ours=$1 theirs=$2 rc_ours rc_theirs
  shift 2
  rm -rf "$OUT/drift"; mkdir -p "$OUT/drift"
  p $PLANNER_BIN/hailstone-scan -L -d "$OUT/drift" || { details+=("  no snapshot: hailstone-scan rc $?"); return 1; }
  p $PLANNER_BIN/$ours -t "$OUT/drift/LOCAL.data" "$@"; rc_ours=$?
  cp "$OUT/p.out" "$OUT/drift/$ours.out"; cp "$OUT/p.err" "$OUT/drift/$ours.err"
  p /usr/lib/ganeti/3.0/usr/bin/$theirs -t "$OUT/drift/LOCAL.data" "$@"; rc_theirs=$?
  if [ "$rc_ours" = "$rc_theirs" ] && cmp -s "$OUT/p.out" "$OUT/drift/$ours.out" &&
     cmp -s "$OUT/p.err" "$OUT/drift/$ours.err"; then
    say "$ours $*: the live outputs differed on 5 tries (the cluster moved between reads: ${details[-1]:-}); on one snapshot (-t $OUT/drift/LOCAL.data) every byte is $theirs's"
    return 0
  fi
  details+=("  and on the snapshot $OUT/drift/LOCAL.data: $ours rc $rc_ours, $theirs rc $rc_theirs")
  return 1
}
live_pair hailstone-check hcheck --machine-readable ||
  fail "hailstone-check -L --machine-readable and hcheck differ (see $OUT/hailstone-check.*, $OUT/hcheck.*)"
live_pair hailstone-check hcheck -v ||
  fail "hailstone-check -L -v and hcheck differ (see $OUT/hailstone-check.*, $OUT/hcheck.*)"
live_pair hailstone-info hinfo -v -v -v ||
  fail "hailstone-info -L -v -v -v and hinfo differ (see $OUT/hailstone-info.*, $OUT/hinfo.*)"
live_pair hailstone-scan hscan -d @DIR@ ||
  fail "hailstone-scan -L and hscan differ (see $OUT/hailstone-scan.*, $OUT/hscan.*, $OUT/scan-*/LOCAL.data*)"
# The file hailstone-scan wrote: the checkers and the planners read it as
# the originals do.
for pair in "hailstone-check hcheck --machine-readable" "hailstone-info hinfo -v -v -v -p" \
            "hailstone-roll hroller --print-moves --full-evacuation"; do
  set -- $pair
  p $PLANNER_BIN/$1 -t "$OUT/scan-ours/LOCAL.data" "${@:3}"; rc=$?
  cp "$OUT/p.out" "$OUT/$1-t.out"
  p /usr/lib/ganeti/3.0/usr/bin/$2 -t "$OUT/scan-ours/LOCAL.data" "${@:3}"
  [ $? = "$rc" ] && cmp -s "$OUT/p.out" "$OUT/$1-t.out" ||
    fail "$1 and $2 differ on the scanned cluster (see $OUT/$1-t.out, $OUT/p.out)"
done
live_pair hailstone-roll hroller --print-moves ||
  fail "hailstone-roll -L --print-moves and hroller differ (see $OUT/hailstone-roll.*, $OUT/hroller.*)"
say "checkers: hailstone-check, -info, -roll and -scan -L print the originals' output on the live cluster (free memory, scores and coefficients masked: they drift); on the file hailstone-scan saved, the originals' bytes"

# --report of the checkers and of capacity planning on the live cluster:
# each page exists, has charts, and counts the nodes Ganeti lists.
lab_nodes=$(nx 1 gnt-node list --no-headers -o name | wc -l)
pages_ok=1
for run in "hailstone-check check" "hailstone-info info" "hailstone-space space --allocator-model" \
           "hailstone-groups groups"; do
  set -- $run
  page="$OUT/$2-live.html"
  rm -f "$page"
  if [ "$1" = hailstone-groups ]; then
    p $PLANNER_BIN/$1 check -L --report="$page"
  else
    p $PLANNER_BIN/$1 -L --report="$page" "${@:3}"
  fi
  counted=$(sed -n 's/.*<dd data-key="nodes">\([0-9]*\)<.*/\1/p' "$page" 2>/dev/null)
  if ! grep -q '<svg' "$page" 2>/dev/null || [ "$counted" != "$lab_nodes" ]; then
    pages_ok=0
    fail "$1 -L --report: no page, or not of the $lab_nodes nodes (${counted:-none}; see $page, $OUT/p.err)"
  fi
done
[ "$pages_ok" = 1 ] && say "--report: hailstone-check, -info, -space (both models) and -groups -L wrote pages of the $lab_nodes live nodes"

# --mond: the lab's ganeti-mond serves cpu-avg-load. Live, every node's
# daemon must answer; on the reports taken once into a --mond-data file,
# hailstone-balance must print hbal's bytes.
p $PLANNER_BIN/hailstone-balance -L --mond -p -S "$OUT/mond" || fail "hailstone-balance -L --mond: rc $?"
if grep -q "MonD" "$OUT/p.err"; then
  fail "hailstone-balance -L --mond: a monitoring daemon did not answer ($(grep MonD "$OUT/p.err" | head -n 2))"
fi
mond_json="["
for n in 1 2 3 4; do
  report=$(nx 1 curl -sf "http://node$n.$D:1815/1/report/default/cpu-avg-load") ||
    fail "node$n's monitoring daemon did not answer"
  mond_json="$mond_json$([ $n = 1 ] || echo ,){\"node\": \"node$n.$D\", \"reports\": [$report]}"
done
echo "$mond_json]" >"$OUT/mond-data.json"
p /usr/lib/ganeti/3.0/usr/bin/hbal -t "$OUT/mond.original" --mond --mond-data="$OUT/mond-data.json" -p -C
cp "$OUT/p.out" "$OUT/mond-hbal.out"; cp "$OUT/p.err" "$OUT/mond-hbal.err"
p $PLANNER_BIN/hailstone-balance -t "$OUT/mond.original" --mond --mond-data="$OUT/mond-data.json" -p -C
cmp -s "$OUT/p.out" "$OUT/mond-hbal.out" && cmp -s "$OUT/p.err" "$OUT/mond-hbal.err" ||
  fail "hailstone-balance and hbal differ on the lab's monitoring data (see $OUT/mond-hbal.*)"
request=$(ls "$CAP"/*.request.json | head -n 1)
nx 1 "$PACKAGED" "$request" --mond >"$OUT/mond-hail.out" 2>"$OUT/mond-hail.err" ||
  fail "hailstone --mond: rc $?"
! grep -q "MonD" "$OUT/mond-hail.err" || fail "hailstone --mond: a monitoring daemon did not answer"
grep -q '"success":true' "$OUT/mond-hail.out" || fail "hailstone --mond: no successful answer"
say "--mond: every node's ganeti-mond answered hailstone and hailstone-balance; on the same reports hailstone-balance printed hbal's bytes"

# -X balance: four shared-storage instances piled on node2 first.
for i in 41 42 43 44; do
  g $ADD -n node2.$D -t sharedfile --disk 0:size=1G -B memory=$((i * 8)) inst$i.$D ||
    fail "creating inst$i on node2"
done
if p $PLANNER_BIN/hailstone-balance -L -X -C --report="$OUT/balance-exec.html"; then
  check_moves "hailstone-balance -X" "$OUT/p.out"
  moved=$MOVED
  say "hailstone-balance -L -X: $(grep -c '^Got job IDs' "$OUT/p.out") job sets, $moved instances where the plan put them"
  report_moves=$(sed -n 's/.*<dd data-key="moves">\([0-9]*\)<.*/\1/p' "$OUT/balance-exec.html")
  [ "${report_moves:-0}" -gt 0 ] && grep -q '<svg' "$OUT/balance-exec.html" ||
    fail "hailstone-balance -X --report: no page of the plan in $OUT/balance-exec.html"
  say "hailstone-balance --report: the plan's page, $report_moves moves ($OUT/balance-exec.html)"
else
  fail "hailstone-balance -L -X: rc $? ($(tail -n 3 "$OUT/p.err"))"
fi
cp "$OUT/p.out" "$OUT/balance-exec.out"

# -X within a data budget: four shared-storage instances piled on node2
# again (inst45..48); the budget is half the disk data the unbudgeted
# plan of the live cluster copies (its --json cost). The budgeted plan
# (--max-copy) runs with -X: every job it submitted succeeds, every
# instance is where its commands put it, and the disks its replace-disks
# commands resync (each instance's disk sizes, as Ganeti lists them) fit
# in the budget. This lab replaces no disk (its kernel has no DRBD) and
# moves shared storage without copying any, so here the unbudgeted plan
# copies nothing and the budget is 0: migrations and failovers only.
for i in 45 46 47 48; do
  g $ADD -n node2.$D -t sharedfile --disk 0:size=1G -B memory=$((i * 8)) inst$i.$D ||
    fail "creating inst$i on node2"
done
full_data=
if p $PLANNER_BIN/hailstone-balance -L --json; then
  full_data=$(/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["cost"]["disk_mib"])' <"$OUT/p.out") ||
    fail "hailstone-balance -L --json: no plan cost ($(head -c 200 "$OUT/p.out"))"
else
  fail "hailstone-balance -L --json: rc $? ($(tail -n 3 "$OUT/p.err"))"
fi
if [[ "$full_data" =~ ^[0-9]+$ ]]; then
  budget=$((full_data / 2))
  if p $PLANNER_BIN/hailstone-balance -L -X -C --max-copy="$budget"; then
    cp "$OUT/p.out" "$OUT/budget-exec.out"
    check_moves "hailstone-balance --max-copy -X" "$OUT/budget-exec.out"
    moved=$MOVED
    jobs=$(sed -n 's/^Got job IDs //p' "$OUT/budget-exec.out" | tr -d ',' | xargs)
    [ -n "$jobs" ] || fail "hailstone-balance --max-copy -X: no job was submitted"
    for j in $jobs; do
      status=$(nx 1 gnt-job list --no-headers -o status "$j")
      [ "$status" = success ] || fail "hailstone-balance --max-copy -X: job $j is $status"
    done
    copied=0
    for inst in $(awk '$1 == "gnt-instance" && $2 == "replace-disks" {print $NF}' "$OUT/budget-exec.out"); do
      for size in $(nx 1 gnt-instance list --no-headers --units=m -o disk.sizes "$inst" | tr ',' ' '); do
        copied=$((copied + ${size%%.*}))
      done
    done
    [ "$copied" -le "$budget" ] ||
      fail "hailstone-balance --max-copy=$budget -X: its replace-disks resync $copied MiB, over the budget"
    say "hailstone-balance -L -X --max-copy=$budget (half of the unbudgeted plan's $full_data MiB): $(echo "$jobs" | wc -w) jobs succeeded, $moved instances where the plan put them, $copied MiB of disk resynced"
  else
    fail "hailstone-balance -L -X --max-copy=$budget: rc $? ($(tail -n 3 "$OUT/p.err"))"
  fi
fi
for i in 45 46 47 48; do
  g gnt-instance remove -f "inst$i.$D" || fail "removing inst$i"
done

# -X under faults. Two planners: while another program holds the
# cluster's lock (flock(1) on the file hailstone-balance would take), a
# second planner refuses before it reads the cluster.
xlock=/run/lock/hailstone-exec_var_run_ganeti_socket_ganeti-query.lock
if p flock "$xlock" $PLANNER_BIN/hailstone-balance -L -X; then
  fail "hailstone-balance -L -X ran while the cluster's lock was held"
else
  grep -q "is carrying out a plan on the cluster of" "$OUT/p.err" ||
    fail "two planners: not the lock's refusal ($(tail -n 2 "$OUT/p.err"))"
  [ -s "$OUT/p.out" ] && fail "two planners: the refused planner printed on stdout"
  say "two planners: hailstone-balance -L -X refused while the cluster's lock was held ($(head -c 90 "$OUT/p.err")...)"
fi
# fault_run NAME SIGNAL BASE: four instances piled on node2 again
# (instBASE+1..4), a balancing -X started and sent SIGNAL as soon as its
# first job set is submitted (INT2: two SIGINTs 0.2 s apart;
# RESTART: the master's ganeti-luxid stopped
# for 4 seconds and started again instead; NODED: node2's ganeti-noded
# stopped, so the jobs moving instances off it fail, and started again
# once the planner has stopped);
# then Ganeti's jobs finish, no instance is lost or doubled, every one is
# on a node Ganeti reports, the cluster verifies, and a second -X run
# finishes the plan with every job successful.
fault_run() {
  local name=$1 sig=$2 before after base=$3 i rc runner
  for i in 1 2 3 4; do
    g $ADD -n node2.$D -t sharedfile --disk 0:size=1G -B memory=$((128 + i * 8)) "inst$((base + i)).$D" ||
      fail "$name: creating inst$((base + i)) on node2"
  done
  before=$(nx 1 gnt-instance list --no-headers -o name | sort)
  # /tmp is the host's in every node.
  rm -f /tmp/fault.out /tmp/fault.err
  nx 1 sh -c "$PLANNER_BIN/hailstone-balance -L -X >/tmp/fault.out 2>/tmp/fault.err & pid=\$!
    for t in \$(seq 1 1200); do grep -q '^Got job IDs' /tmp/fault.out && break; sleep 0.1; done
    case $sig in
      RESTART) /usr/lib/ganeti/daemon-util stop ganeti-luxid; sleep 4
               /usr/lib/ganeti/daemon-util check-and-start ganeti-luxid ;;
      NODED) ;;
      INT2) kill -INT \$pid; sleep 0.2; kill -INT \$pid ;;
      *) kill -$sig \$pid; [ $sig = INT ] && { sleep 1; kill -0 \$pid 2>/dev/null || echo 'stopped at once' >>/tmp/fault.err; } ;;
    esac
    wait \$pid; echo \"rc=\$?\" >>/tmp/fault.out" &
  runner=$!
  if [ "$sig" = NODED ]; then
    for i in $(seq 1 1200); do grep -q '^Got job IDs' /tmp/fault.out 2>/dev/null && break; sleep 0.1; done
    nx 2 /usr/lib/ganeti/daemon-util stop ganeti-noded
  fi
  wait $runner
  if [ "$sig" = NODED ]; then
    nx 2 /usr/lib/ganeti/daemon-util check-and-start ganeti-noded || fail "$name: starting node2's ganeti-noded again"
  fi
  cp /tmp/fault.out "$OUT/fault-$name.out"; cp /tmp/fault.err "$OUT/fault-$name.err"
  grep -q '^Got job IDs' "$OUT/fault-$name.out" || fail "$name: no job set was submitted"
  # Ganeti's queue runs on: wait for every job.
  for j in $(nx 1 gnt-job list --no-headers -o id,status | awk '$2 != "success" && $2 != "error" && $2 != "canceled" {print $1}'); do
    g gnt-job watch "$j"
  done
  after=$(nx 1 gnt-instance list --no-headers -o name | sort)
  [ "$before" = "$after" ] || fail "$name: the instances changed: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
  local strays
  strays=$(comm -13 <(nx 1 gnt-node list --no-headers -o name | sort) \
    <(nx 1 gnt-instance list --no-headers -o pnode | sort -u))
  [ -z "$strays" ] || fail "$name: instances on nodes Ganeti does not report: $(echo $strays)"
  g gnt-cluster verify --ignore-errors=ENODESETUP || fail "$name: gnt-cluster verify (see $OUT/commands.log)"
  if p $PLANNER_BIN/hailstone-balance -L -X -C; then
    cp "$OUT/p.out" "$OUT/fault-$name.again.out"
  else
    fail "$name: the second run: rc $? ($(tail -n 3 "$OUT/p.err"))"
  fi
  say "$name: $(grep -c '^Got job IDs' "$OUT/fault-$name.out") job set(s) submitted before the stop ($(tail -n 1 "$OUT/fault-$name.out")); every instance accounted for, the cluster verifies; the second run finished with $(grep -c '^Got job IDs' "$OUT/fault-$name.again.out") job set(s)"
}
fault_run "kill -9" KILL 50
fault_run "Ctrl-C" INT 60
fault_run "luxid restart" RESTART 70
fault_run "Ctrl-C twice" INT2 90
grep -q '^rc=1$' "$OUT/fault-Ctrl-C twice.out" ||
  fail "Ctrl-C twice: not exit status 1 ($(tail -n 2 "$OUT/fault-Ctrl-C twice.out"))"
grep -q "stopped waiting at a second interrupt: jobs .* were still queued or running" "$OUT/fault-Ctrl-C twice.err" ||
  fail "Ctrl-C twice: the jobs still running were not named ($(tail -n 2 "$OUT/fault-Ctrl-C twice.err"))"
say "Ctrl-C twice: $(grep -ho "stopped waiting at a second interrupt: jobs [0-9, ]*" "$OUT/fault-Ctrl-C twice.err")"
fault_run "failed job" NODED 80
grep -q '^rc=1$' "$OUT/fault-failed job.out" ||
  fail "failed job: the planner did not stop with exit status 1 ($(tail -n 2 "$OUT/fault-failed job.out"))"
grep -q "Not all jobs completed successfully" "$OUT/fault-failed job.err" ||
  fail "failed job: the failed jobs were not named ($(tail -n 2 "$OUT/fault-failed job.err"))"
say "failed job: $(grep -h "Not all jobs" "$OUT/fault-failed job.err" | head -n 1)"
# The jobs the stopped node daemon made fail; the last check allows them.
fault_failed=$(nx 1 gnt-job list --no-headers -o id,status | awk '$2 != "success" {print $1}')
[ -n "$fault_failed" ] || fail "failed job: Ganeti lists no failed job"
grep -q '^rc=0$' "$OUT/fault-luxid restart.out" ||
  fail "luxid restart: the planner did not finish its plan ($(tail -n 2 "$OUT/fault-luxid restart.err"))"
say "luxid restart: $(grep -c '^Lost the connection' "$OUT/fault-luxid restart.out") lost connection(s) taken up again by the planner"
grep -q "Interrupted: waiting for jobs" "$OUT/fault-Ctrl-C.out" ||
  fail "Ctrl-C: the interrupt was not announced ($(tail -n 2 "$OUT/fault-Ctrl-C.out"))"
grep -q "stopped at once" "$OUT/fault-Ctrl-C.err" && fail "Ctrl-C: the planner stopped without waiting for its job set"
grep -q '^rc=0$' "$OUT/fault-Ctrl-C.out" || fail "Ctrl-C: not exit status 0 after the running set"
# The later steps see the cluster without these instances.
for i in 51 52 53 54 61 62 63 64 71 72 73 74 81 82 83 84 91 92 93 94; do
  g gnt-instance remove -f "inst$i.$D" || fail "removing inst$i"
done

# -X squeeze: the quiet cluster shrinks (moves, standby tags, offline,
# powered off through the out-of-band program), then grows back. Only a
# node whose instances are all externally mirrored may be powered off, so
# the diskless instances go first (where they are depends on live memory).
for i in $(nx 1 gnt-instance list --no-headers --separator=' ' -o name,disk_template | awk '$2 != "sharedfile" {print $1}'); do
  g gnt-instance remove -f "$i" || fail "removing $i"
done
if p $PLANNER_BIN/hailstone-squeeze -L -X -C --report="$OUT/squeeze-exec.html"; then
  grep -q '<dd data-key="decision">offline</dd>' "$OUT/squeeze-exec.html" ||
    fail "hailstone-squeeze -X --report: the page does not say the nodes go offline"
  cp "$OUT/p.out" "$OUT/squeeze-off.out"
  off=$(sed -n "/^'Nodes to offline'/,/^\$/p" "$OUT/p.out" | grep "\.$D\$")
  [ -n "$off" ] || fail "hailstone-squeeze -X: no node to power off"
  for n in $off; do
    state=$(nx 1 gnt-node list --no-headers --separator=' ' -o offline,powered,tags "$n")
    [ "$state" = "Y N htools:standby:auto" ] || fail "hailstone-squeeze -X: $n is '$state'"
    [ "$(nx 1 "$REPO/tests/e2e/oob-power" power-status "$n")" = '{"powered": false}' ] ||
      fail "hailstone-squeeze -X: $n still runs its node daemon"
  done
  [ -z "$(nx 1 gnt-instance list --no-headers -o pnode | grep -F -x -f <(echo "$off"))" ] ||
    fail "hailstone-squeeze -X: instances left on powered-off nodes"
  say "hailstone-squeeze -L -X: powered off $(echo $off)"
  if p $PLANNER_BIN/hailstone-squeeze -L -X -C --minimal-resources=60; then
    cp "$OUT/p.out" "$OUT/squeeze-on.out"
    for n in $off; do
      state=$(nx 1 gnt-node list --no-headers --separator=' ' -o offline,powered "$n")
      [ "$state" = "N Y" ] || fail "hailstone-squeeze -X (on): $n is '$state'"
    done
    say "hailstone-squeeze -L -X --minimal-resources=60: powered on $(echo $off)"
  else
    fail "hailstone-squeeze -L -X (power on): rc $? ($(tail -n 3 "$OUT/p.err"))"
  fi
else
  fail "hailstone-squeeze -L -X: rc $? ($(tail -n 3 "$OUT/p.err"))"
fi
# -X roll: a diskless and a file instance join the shared-storage ones;
# hailstone-roll carries out hroller's reboot groups, a node's reboot being
# a power cycle of its node daemon (oob-power). Every node but the master
# is rebooted once, and every instance ends where it was, as it was.
g $ADD -n node3.$D -t diskless inst45.$D || fail "creating inst45 on node3"
g $ADD -n node4.$D -t file --disk 0:size=1G inst46.$D || fail "creating inst46 on node4"
placed() { nx 1 gnt-instance list --no-headers --separator=' ' -o name,pnode,status | sort; }
before=$(placed)
rm -f "$OUT/rebooted"
reboot_cmd="$REPO/tests/e2e/oob-power power-cycle \"\$1\" && echo \"\$1\" >> $OUT/rebooted"
if p $PLANNER_BIN/hailstone-roll -L -X --print-moves --reboot-command="$reboot_cmd"; then
  cp "$OUT/p.out" "$OUT/roll-exec.out"; cp "$OUT/p.err" "$OUT/roll-exec.err"
  after=$(placed)
  [ "$before" = "$after" ] ||
    fail "hailstone-roll -X: instances not back as they were: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
  master=$(nx 1 gnt-cluster getmaster)
  want=$(nx 1 gnt-node list --no-headers -o name,offline | awk -v m="$master" '$2 == "N" && $1 != m {print $1}' | sort)
  got=$(sort "$OUT/rebooted" 2>/dev/null)
  [ -n "$want" ] && [ "$want" = "$got" ] ||
    fail "hailstone-roll -X: rebooted '$(echo $got)', expected every online node but the master: '$(echo $want)'"
  for n in $want; do
    [ "$(nx 1 "$REPO/tests/e2e/oob-power" power-status "$n")" = '{"powered": true}' ] ||
      fail "hailstone-roll -X: $n's node daemon is not running after its reboot"
  done
  grep -q "^The master node $master was not rebooted" "$OUT/p.out" ||
    fail "hailstone-roll -X: the master was not named as left to the operator"
  say "hailstone-roll -L -X: $(grep -c '^Reboot group .*: done$' "$OUT/p.out") groups, $(grep -c '^Got job IDs' "$OUT/p.out") job sets; rebooted (power-cycled) $(echo $got); every instance back where it was, as it was"
else
  fail "hailstone-roll -L -X: rc $? ($(tail -n 3 "$OUT/p.err"))"
fi
failed_jobs=$(nx 1 gnt-job list --no-headers -o id,status |
  awk '$2 != "success" {print $1}' | grep -vxF -e "$fault_failed" || true)
[ -z "$failed_jobs" ] || fail "jobs that did not succeed after the planners (besides the failed job case's $(echo $fault_failed)): $(echo $failed_jobs)"

# --- hailstone-shadow: hail answers, hailstone is recorded ------------------
# Here, before plain and drbd and harep's offline node, while the nodes
# have room for new instances (after them hail refuses every allocation:
# FailN1).
# The lab's default allocator becomes hailstone-shadow (settings in the
# master's /etc/ganeti/hailstone-shadow.conf, no iallocator parameter).
# Every allocator operation Ganeti can carry out here goes through it:
# each instance must land where hail's recorded answer put it, and the
# report must show every answer identical. Then a stub reference that
# refuses shows up as a difference (Ganeti gets its refusal); with
# primary=hailstone Ganeti's job gets hailstone's answer (the stub still
# refusing in the shadow); and with hailstone-htools enable --shadow,
# hbal -L -C and hcheck -L run through the wrappers and are recorded.
SHADOW_PKG=/usr/lib/ganeti/iallocators/hailstone-shadow
SHADOW_DIR=/var/log/ganeti/hailstone-shadow
SHADOW_CONF=/etc/ganeti/hailstone-shadow.conf
SHADOW_OUT=$OUT/shadow
mkdir -p "$SHADOW_OUT"
shadow_conf() { nx 1 sh -c "printf '%s\n' \"\$@\" > $SHADOW_CONF" sh "$@"; }
# shadow_list [PATTERN]: the master's records, oldest first.
shadow_list() { nx 1 sh -c "ls -d $SHADOW_DIR/2*Z-${1:-}* 2>/dev/null | sort"; }
# shadow_wait N: waits (60 s at most) until the master has N records.
shadow_wait() {
  for _ in $(seq 120); do
    [ "$(shadow_list | wc -l)" -ge "$1" ] && return 0
    sleep 0.5
  done
  return 1
}
# shadow_call REC WHICH: the request and WHICH answer (reference or
# hailstone) of the record REC as a call of expect.py; its prefix.
shadow_call() {
  local call=$SHADOW_OUT/$(basename "$1")
  nx 1 zcat "$1/request.json.gz" >"$call.request.json"
  nx 1 cat "$1/$2.out" >"$call.answer.json"
  echo "$call"
}
# shadow_op DESCRIPTION COMMAND...: a Ganeti command through the shadow;
# it must succeed, and every instance must be where hail's answer (the
# reference's, recorded) put it.
shadow_count=0
shadow_op() {
  local what=$1 before rec call
  shift
  before=$(shadow_list)
  g "$@" || { fail "shadow: $what: rc $? (see $OUT/commands.log)"; return; }
  shadow_wait $((shadow_count + 1)) || { fail "shadow: $what: not recorded"; return; }
  for rec in $(shadow_list | grep -vxF -e "${before:-none}"); do
    shadow_count=$((shadow_count + 1))
    call=$(shadow_call "$rec" reference)
    check_placed "$call"
    say "shadow: $what: $($EXPECT describe "$call"), recorded as $(basename "$rec")"
  done
}
[ -x "$SHADOW_PKG" ] || fail "the package did not install $SHADOW_PKG"
shadow_conf "record-dir=$SHADOW_DIR" "keep=500"
g gnt-cluster modify -I hailstone-shadow || fail "gnt-cluster modify -I hailstone-shadow"
shadow_op "allocate diskless (cluster default)" $ADD -t diskless -B memory=128 shadow1.$D
shadow_op "allocate sharedfile (-I)" $ADD -I hailstone-shadow -t sharedfile --disk 0:size=1G -B memory=128 shadow2.$D
shadow_op "migrate -I (sharedfile)" gnt-instance migrate -f -I hailstone-shadow shadow2.$D
shadow_op "failover -I (diskless)" gnt-instance failover -f -I hailstone-shadow shadow1.$D
printf '%s\n' '[' \
  ' {"instance_name": "shadow3.'$D'", "mode": "create", "disk_template": "diskless",' \
  '  "disks": [], "nics": [{}], "os_type": "noop", "hypervisor": "fake",' \
  '  "ip_check": false, "name_check": false, "start": false, "beparams": {"memory": 128}},' \
  ' {"instance_name": "shadow4.'$D'", "mode": "create", "disk_template": "sharedfile",' \
  '  "disks": [{"size": 1024}], "nics": [{}], "os_type": "noop", "hypervisor": "fake",' \
  '  "ip_check": false, "name_check": false, "start": false, "beparams": {"memory": 128}}' \
  ']' >"$SHADOW_OUT/batch.json"
shadow_op "batch-create (multi-allocate)" gnt-instance batch-create -I hailstone-shadow "$SHADOW_OUT/batch.json"
# A node holding only diskless and sharedfile primaries, and no secondary.
evac=$(nx 1 gnt-instance list --no-headers --separator=' ' -o pnode,snodes,disk_template |
  awk 'NF == 2 {n[$1]++; if ($2 != "diskless" && $2 != "sharedfile") bad[$1] = 1}
       NF == 3 {bad[$1] = 1; bad[$2] = 1}
       END {for (x in n) if (!bad[x]) print n[x], x}' | sort -rn | head -n 1 | cut -d' ' -f2)
online=$(nx 1 gnt-node list --no-headers -o name,offline | awk '$2 == "N"' | wc -l)
if [ -n "$evac" ] && [ "$online" -ge 3 ]; then
  shadow_op "node-evacuate --primary-only $evac" gnt-node evacuate -f -I hailstone-shadow --primary-only "$evac"
else
  say "shadow: no online node holds only diskless and sharedfile instances: node-evacuate not run"
fi
if nx 1 $SHADOW_PKG report >"$SHADOW_OUT/report.txt" 2>&1; then
  identical=$(sed -n 's/^Allocator runs: \([0-9]*\), \([0-9]*\) identical.*/\1 \2/p' "$SHADOW_OUT/report.txt")
  [ "$identical" = "$shadow_count $shadow_count" ] ||
    fail "shadow: the report does not show the $shadow_count runs identical (see $SHADOW_OUT/report.txt)"
  say "shadow: report: $shadow_count allocator runs, all identical; hailstone's time over hail's: $(grep -o 'median [0-9.]*, 99th percentile [0-9.]*' "$SHADOW_OUT/report.txt")"
else
  fail "shadow: hailstone-shadow report exits $? after identical runs (see $SHADOW_OUT/report.txt)"
fi
nx 1 $SHADOW_PKG report --json >"$SHADOW_OUT/report.json" || true
# A reference that refuses: Ganeti gets its refusal, the report the difference.
printf '%s\n' '#!/bin/sh' \
  "echo '{\"success\":false,\"info\":\"the stub reference refuses\",\"result\":[]}'" \
  >"$SHADOW_OUT/stub-reference"
chmod 0755 "$SHADOW_OUT/stub-reference"
shadow_conf "record-dir=$SHADOW_DIR" "reference=$SHADOW_OUT/stub-reference"
if g $ADD -t diskless -B memory=128 shadow5.$D; then
  fail "shadow: the stub reference's refusal did not reach Ganeti"
else
  grep -q "the stub reference refuses" "$OUT/last.log" ||
    fail "shadow: Ganeti's error is not the stub reference's refusal (see $OUT/commands.log)"
fi
shadow_wait $((shadow_count + 1)) || fail "shadow: the stub's run was not recorded"
shadow_count=$((shadow_count + 1))
nx 1 $SHADOW_PKG report >"$SHADOW_OUT/report-stub.txt" 2>&1; rc=$?
[ "$rc" = 3 ] || fail "shadow: report exits $rc after a difference, not 3"
grep -q "success: false (reference), true (hailstone)" "$SHADOW_OUT/report-stub.txt" &&
  grep -q "^    zcat $SHADOW_DIR/.*/request.json.gz > /tmp/r.json$" "$SHADOW_OUT/report-stub.txt" &&
  grep -q "^    $SHADOW_OUT/stub-reference /tmp/r.json$" "$SHADOW_OUT/report-stub.txt" ||
  fail "shadow: the stub's difference or its reproduction is not in the report (see $SHADOW_OUT/report-stub.txt)"
say "shadow: a refusing stub reference: Ganeti got its refusal, report exits 3 with the difference and its reproduction"
# primary=hailstone: Ganeti's job gets hailstone's answer (the stub, which
# refuses, runs in the shadow).
shadow_conf "record-dir=$SHADOW_DIR" "reference=$SHADOW_OUT/stub-reference" "primary=hailstone"
before=$(shadow_list)
if g $ADD -t diskless -B memory=128 shadow6.$D; then
  shadow_wait $((shadow_count + 1)) || fail "shadow: primary=hailstone: not recorded"
  shadow_count=$((shadow_count + 1))
  rec=$(shadow_list | grep -vxF -e "$before" | tail -n 1)
  call=$(shadow_call "$rec" hailstone)
  nx 1 cat "$rec/record.json" | grep -q '"primary":"hailstone"' ||
    fail "shadow: primary=hailstone: the record does not say so"
  check_placed "$call"
  say "shadow: primary=hailstone: Ganeti placed the instance as hailstone's answer said ($($EXPECT describe "$call")), the refusing reference in the shadow"
else
  fail "shadow: primary=hailstone: Ganeti did not get hailstone's answer (see $OUT/commands.log)"
fi
shadow_conf "record-dir=$SHADOW_DIR"
# The htools in the shadow.
original_hbal=$(readlink /usr/bin/hbal)
if /usr/bin/hailstone-htools enable --shadow >"$SHADOW_OUT/enable.out" 2>&1; then
  grep -q "^hbal: the original, hailstone-balance in the shadow$" "$SHADOW_OUT/enable.out" ||
    fail "shadow: enable --shadow did not make hbal a wrapper (see $SHADOW_OUT/enable.out)"
  for run in "hbal -L -C" "hcheck -L"; do
    name=${run%% *}
    before=$(shadow_list "htools-$name")
    nx 1 $run >"$SHADOW_OUT/$name.wrapped.out" 2>"$SHADOW_OUT/$name.wrapped.err"; rc_w=$?
    nx 1 bash -c "exec -a $name /usr/bin/$name.htools ${run#* }" >"$SHADOW_OUT/$name.direct.out" 2>"$SHADOW_OUT/$name.direct.err"; rc_d=$?
    [ "$rc_w" = "$rc_d" ] || fail "shadow: $run through the wrapper exits $rc_w, the original $rc_d"
    mask_drift "$SHADOW_OUT/$name.wrapped.out" "$SHADOW_OUT/$name.direct.out"
    cmp -s "$SHADOW_OUT/$name.wrapped.out" "$SHADOW_OUT/$name.direct.out" ||
      fail "shadow: $run through the wrapper printed otherwise than the original (see $SHADOW_OUT/$name.*.out)"
    rec=""
    for _ in $(seq 120); do
      rec=$(shadow_list "htools-$name" | grep -vxF -e "${before:-none}" | tail -n 1)
      [ -n "$rec" ] && break
      sleep 0.5
    done
    if [ -z "$rec" ]; then
      fail "shadow: $run was not recorded"
      continue
    fi
    verdict=$(nx 1 cat "$rec/record.json" | python3 -c 'import json,sys; m=json.load(sys.stdin); print(m["verdict"], "-", m["state"]["how"], "-", m["difference"])')
    case "$name:$verdict" in
      *:identical*) ;;
      hcheck:*) say "shadow: hcheck -L differs on its snapshot (possibly drifted): $verdict" ;;
      *) fail "shadow: $run: hailstone's program differs: $verdict" ;;
    esac
    say "shadow: $run through the wrapper: rc $rc_w as the original's; recorded: $verdict"
  done
  /usr/bin/hailstone-htools disable >"$SHADOW_OUT/disable.out" 2>&1 || fail "shadow: hailstone-htools disable"
  [ "$(readlink /usr/bin/hbal)" = "$original_hbal" ] || fail "shadow: hbal is not the original after disable"
  nx 1 $SHADOW_PKG report >"$SHADOW_OUT/report-final.txt" 2>&1
  grep -q "^htools runs: 2, " "$SHADOW_OUT/report-final.txt" ||
    fail "shadow: the report does not list the two htools runs (see $SHADOW_OUT/report-final.txt)"
else
  fail "shadow: hailstone-htools enable --shadow (see $SHADOW_OUT/enable.out)"
fi
nx 1 rm -f "$SHADOW_CONF"
g gnt-cluster modify -I hailstone || fail "gnt-cluster modify -I hailstone (after the shadow)"

# --- plain and drbd: the requests and Ganeti's acceptance ------------------
say "enabling plain and drbd (enable-lvm-drbd.sh, 4 drbd and 2 plain instances written into the configuration)"
INJECT_DRBD=4 INJECT_PLAIN=2 "$LAB/enable-lvm-drbd.sh" >"$OUT/enable-lvm-drbd.log" 2>&1 ||
  die "enable-lvm-drbd.sh failed (see $OUT/enable-lvm-drbd.log)"
NOSTART="$ADD --no-start"
op "allocate plain" accepted $NOSTART -I hailstone -t plain --disk 0:size=2G inst21.$D
op "allocate drbd" accepted $NOSTART -I hailstone -t drbd --disk 0:size=2G inst22.$D
op "replace-disks -I (drbd relocate)" accepted gnt-instance replace-disks -I hailstone drbd2.$D
sec=$(nx 1 gnt-instance list --no-headers -o snodes drbd1.$D)
op "node-evacuate --secondary-only $sec" accepted gnt-node evacuate -f -I hailstone --secondary-only "$sec"
pri=$(nx 1 gnt-instance list --no-headers -o pnode drbd3.$D)
op "node-evacuate --primary-only $pri (drbd)" accepted gnt-node evacuate -f -I hailstone --primary-only "$pri"
# Ganeti 3.0.2 never asks an allocator to evacuate all of a node's
# instances at once ("Due to an issue with the iallocator interface...",
# LUNodeEvacuate): it must refuse before calling hailstone.
pri=$(nx 1 gnt-instance list --no-headers -o pnode drbd4.$D)
mark=$(mktemp "$OUT/mark.XXXXXX")
if g gnt-node evacuate -f -I hailstone "$pri"; then
  fail "node-evacuate (all): Ganeti carried it out"
fi
grep -q "not possible to evacuate all instances at once" "$OUT/last.log" ||
  fail "node-evacuate (all): not Ganeti's known refusal (see $OUT/commands.log)"
[ -z "$(calls_since "$mark")" ] || fail "node-evacuate (all): Ganeti called hailstone"
rm -f "$mark"
say "node-evacuate (all) $pri: refused by Ganeti before any allocator call, as Ganeti 3.0.2 does"

# --- every captured request: hail's answer, Ganeti's checker ---------------
# The checker runs Ganeti's own Python code (installed with the lab) on
# the testsuite's mock configuration: the ganeti-testsuite package of the
# lab's Ganeti, unpacked (not installed: it depends on the whole daemon
# stack), and python3-mock.
checker_ready() {
  local version py cached
  /usr/bin/python3 -c 'import mock' 2>/dev/null ||
    apt-get install -y --no-install-recommends python3-mock >>"$OUT/checker.log" 2>&1 ||
    return 1
  [ -f "${GANETI_TESTSUITE_DIR:-/opt/ganeti-testsuite/usr/share/ganeti/testsuite/test/py}/testutils/config_mock.py" ] &&
    return 0
  version=$(dpkg-query -W -f '${Version}' ganeti-3.0 2>/dev/null) || return 1
  py=usr/share/ganeti/testsuite/test/py
  # `make compat` unpacks the same package for the hbal suite.
  for cached in "$REPO/target/ganeti-testsuite/$version" "$OUT/ganeti-testsuite"; do
    if [ -f "$cached/$py/testutils/config_mock.py" ]; then
      export GANETI_TESTSUITE_DIR=$cached/$py
      return 0
    fi
  done
  local tmp
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  (cd "$tmp" && apt-get download "ganeti-testsuite=$version") >>"$OUT/checker.log" 2>&1 || {
    apt-get update >>"$OUT/checker.log" 2>&1
    (cd "$tmp" && apt-get download "ganeti-testsuite=$version") >>"$OUT/checker.log" 2>&1
  } || { rm -rf "$tmp"; return 1; }
  dpkg-deb -x "$tmp"/ganeti-testsuite_*.deb "$OUT/ganeti-testsuite" || { rm -rf "$tmp"; return 1; }
  rm -rf "$tmp"
  export GANETI_TESTSUITE_DIR=$OUT/ganeti-testsuite/$py
}
checker_ready || fail "Ganeti's answer checker cannot run: python3-mock or ganeti-testsuite missing (see $OUT/checker.log)"
say "comparing every captured request with hail 3.0.2"
total=0
for call in $(ls "$CAP"/*.request.json | sort | sed 's/\.request\.json$//'); do
  total=$((total + 1))
  mapfile -t hargs < <($EXPECT hail-args "$call")
  "$HAIL" "$call.request.json" "${hargs[@]}" >"$call.hail.json" 2>"$call.hail.err"
  if ! cmp -s "$call.hail.json" "$call.answer.json"; then
    fail "$(basename "$call"): hailstone's answer differs from hail's ($($EXPECT describe "$call"))"
    diff <(head -c 2000 "$call.hail.json") <(head -c 2000 "$call.answer.json") | head -n 6
  fi
  verdict=$(/usr/bin/python3 "$VALIDATE" "$call.request.json" "$call.answer.json" 2>"$call.check.err")
  case $?:$verdict in
    0:OK*) ;;
    1:*) fail "$(basename "$call"): Ganeti's client code refused the answer: $verdict" ;;
    *) fail "$(basename "$call"): Ganeti's client code could not check the answer: $(head -n 2 "$call.check.err" | tr '\n' ' ')" ;;
  esac
done
[ "$total" -ge 15 ] || fail "only $total requests were captured"
say "$total requests: $(cat "$CAP"/*.request.json | grep -o '"type": *"[a-z-]*"' | sed 's/.*"\([a-z-]*\)"/\1/' | sort | uniq -c | tr -s ' ' | tr '\n' ',')"

# --- harep: repairs of the instances of an offline node ---------------------
# Auto-repair enabled on the cluster, the node holding most drbd and plain
# primaries set offline. Both programs first with --dry-run on the same
# state (task UUIDs and times masked; the repair jobs' iallocator is the
# cluster's default for hailstone-repair, hail for harep); then harep for
# real, its tags removed once its jobs ended, then hailstone-repair: the
# same jobs (by Ganeti's summaries); then hailstone-repair again records
# how its repairs ended. The lab cannot run drbd and plain disk work, so
# the repair jobs themselves fail; their opcodes are what is compared.
HAREP=/usr/lib/ganeti/3.0/usr/bin/harep
master=$(nx 1 gnt-cluster getmaster)
victim=$(nx 1 gnt-instance list --no-headers --separator=' ' -o pnode,disk_template |
  awk -v m="$master" '($2 == "drbd" || $2 == "plain") && $1 != m {n[$1]++}
       END {for (x in n) print n[x], x}' | sort -rn | head -n 1 | cut -d' ' -f2)
default_ialloc=$(nx 1 gnt-cluster info | awk -F': *' '/default instance allocator:/ {print $2; exit}')
mask_repair() {
  sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/UUID/g; s/:[0-9]{10}:/:TIME:/g' "$1" |
    sed "s/\"iallocator\":\"$default_ialloc\"/\"iallocator\":\"hail\"/g"
}
last_job() { nx 1 gnt-job list --no-headers -o id | sort -n | tail -n 1; }
jobs_after() { nx 1 gnt-job list --no-headers --separator='|' -o id,summary | awk -F'|' -v a="$1" '$1 > a {print $2}'; }
settle() {
  for _ in $(seq 90); do
    [ -z "$(nx 1 gnt-job list --no-headers -o status | grep -E 'queued|waiting|running')" ] && return 0
    sleep 2
  done
  return 1
}
untag_repairs() {
  local i t
  for i in $(nx 1 gnt-instance list --no-headers -o name); do
    t=$(nx 1 gnt-instance list-tags "$i" | grep -E '^ganeti:watcher:autorepair:(pending|result):')
    [ -z "$t" ] || g gnt-instance remove-tags "$i" $t || fail "removing the repair tags of $i"
  done
}
if [ -z "$victim" ]; then
  fail "harep: no node holds drbd or plain primaries"
elif ! g gnt-cluster add-tags ganeti:watcher:autorepair:reinstall ||
     ! g gnt-node modify --auto-promote --offline=yes "$victim"; then
  fail "harep: cannot enable auto-repair or set $victim offline (see $OUT/commands.log)"
else
  p $HAREP --dry-run --job-delay=1; rc=$?
  mask_repair "$OUT/p.out" >"$OUT/harep-dry.out"
  p $PLANNER_BIN/hailstone-repair --dry-run --job-delay=1
  [ $? = "$rc" ] && mask_repair "$OUT/p.out" | cmp -s - "$OUT/harep-dry.out" ||
    fail "hailstone-repair --dry-run and harep --dry-run differ (see $OUT/harep-dry.out, $OUT/p.out)"
  repairs=$(grep -c '^Executing ' "$OUT/harep-dry.out")
  [ "$repairs" -ge 1 ] || fail "harep --dry-run found nothing to repair on $victim's instances"
  mark=$(last_job)
  p $HAREP --job-delay=1 || fail "harep: rc $? ($(tail -n 2 "$OUT/p.err"))"
  settle || fail "harep's jobs did not end"
  jobs_after "$mark" | sed 's/([^)]*)//g' >"$OUT/harep-jobs"
  untag_repairs
  mark=$(last_job)
  p $PLANNER_BIN/hailstone-repair --job-delay=1 || fail "hailstone-repair: rc $? ($(tail -n 2 "$OUT/p.err"))"
  cp "$OUT/p.out" "$OUT/repair-1.out"
  settle || fail "hailstone-repair's jobs did not end"
  jobs_after "$mark" | sed 's/([^)]*)//g' >"$OUT/repair-jobs"
  cmp -s "$OUT/harep-jobs" "$OUT/repair-jobs" ||
    fail "hailstone-repair submitted other jobs than harep (see $OUT/harep-jobs, $OUT/repair-jobs)"
  p $PLANNER_BIN/hailstone-repair --job-delay=1 || fail "hailstone-repair (second run): rc $?"
  cp "$OUT/p.out" "$OUT/repair-2.out"
  ended=$(grep -c '^Moving .* from "Pending repair" to ' "$OUT/repair-2.out")
  [ "$ended" = "$repairs" ] || fail "hailstone-repair's second run ended $ended of $repairs pending repairs (see $OUT/repair-2.out)"
  say "harep: $victim offline; $repairs repairs; hailstone-repair --dry-run printed harep's (UUIDs, times and the default iallocator masked); both submitted the same $(wc -l <"$OUT/repair-jobs") jobs; the second run recorded how the $ended repairs ended"
  # The lab is torn down next: $victim stays offline.
fi

# --- the drop-in names: hbal, hcheck, harep, ... run hailstone --------------
# The cron-style calls and a planner under the originals' names, with the
# names switched to hailstone (dpkg-divert), then switched back.
original_hbal=$(readlink /usr/bin/hbal)
if /usr/bin/hailstone-htools enable >"$OUT/htools-enable.out" 2>&1; then
  drop_ok=1
  for pair in "hbal:hailstone-balance" "hcheck:hailstone-check" "harep:hailstone-repair" "hroller:hailstone-roll"; do
    name=${pair%%:*} ours=${pair#*:}
    nx 1 "$name" --version | head -n 1 | grep -q "^$ours version " || { drop_ok=0; fail "$name does not run $ours"; }
  done
  # drop_pair NAME OURS ARGS...: the same output (live figures masked: they
  # drift between the two runs; five tries).
  drop_pair() {
    local name=$1 ours=$2 try rc
    shift 2
    for try in 1 2 3 4 5; do
      p "$name" "$@"; rc=$?; cp "$OUT/p.out" "$OUT/drop-$name.out"
      p $PLANNER_BIN/$ours "$@"
      [ $? = "$rc" ] || continue
      cp "$OUT/p.out" "$OUT/drop-$ours.out"
      mask_drift "$OUT/drop-$name.out" "$OUT/drop-$ours.out"
      cmp -s "$OUT/drop-$name.out" "$OUT/drop-$ours.out" && return 0
    done
    return 1
  }
  drop_pair hbal hailstone-balance -L -C || { drop_ok=0; fail "hbal (drop-in) and hailstone-balance differ"; }
  drop_pair hcheck hailstone-check -L --machine-readable || { drop_ok=0; fail "hcheck (drop-in) and hailstone-check differ"; }
  p harep --dry-run || { drop_ok=0; fail "harep (drop-in): rc $?"; }
  grep -q "^Instance status count" "$OUT/p.out" || { drop_ok=0; fail "harep (drop-in) printed no count"; }
  /usr/bin/hailstone-htools disable >"$OUT/htools-disable.out" 2>&1 || fail "hailstone-htools disable"
  [ "$(readlink /usr/bin/hbal)" = "$original_hbal" ] && /usr/bin/hbal --version | head -n 1 | grep -q '^hbal (ganeti) version' ||
    { drop_ok=0; fail "hbal is not the original again after hailstone-htools disable"; }
  [ -z "$(dpkg-divert --list | grep 'by hailstone$')" ] || { drop_ok=0; fail "diversions by hailstone are left"; }
  [ "$drop_ok" = 1 ] && say "drop-in names: hbal, hcheck, harep, hroller ran hailstone's programs (hbal -L -C and hcheck -L as hailstone-balance and hailstone-check; harep --dry-run, as cron calls it); hailstone-htools disable gave the names back"
else
  fail "hailstone-htools enable (see $OUT/htools-enable.out)"
fi


trap - EXIT
cleanup
if [ "$failures" = 0 ]; then
  say "PASSED: $total requests answered as hail answers them, every operation carried out by Ganeti"
else
  say "$failures failure(s):"
  # Again at the end, where a log's tail shows them.
  for f in "${failed[@]}"; do echo "=== e2e FAILED: $f"; done
  # The live pairs' differences (diff of ours, then the original's).
  for f in "${details[@]}"; do echo "=== e2e   $f"; done
fi
[ "$failures" = 0 ]
