#!/bin/sh
# Builds hailstone's fuzz targets and runs each for FUZZ_SECONDS seconds.
# Called by `make fuzz`; see fuzz/README.md.
#
# Environment:
#   FUZZ_SECONDS  seconds per target (default 60)
#   FUZZ_TARGETS  targets to run, space separated (default: all of them)
#   FUZZ_ARGS     extra libFuzzer arguments (e.g. -jobs=2 -workers=2)
#   FUZZ_NICE     nice level of the fuzzing processes (default 19)
#   CARGO         cargo command (default cargo)
set -eu

cd "$(dirname "$0")/.."
root=$(pwd)
secs=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"parse pipeline cluster datafile live replies cli"}
nice_level=${FUZZ_NICE:-19}
cargo=${CARGO:-cargo}

# cargo-fuzz passes -Z flags to rustc; on a stable toolchain this lets them
# through. hailstone's arithmetic wraps in every profile (Cargo.toml), so
# the fuzz build keeps overflow checks off even though cargo-fuzz turns
# debug assertions on. The short runs use no sanitizer, for speed;
# FUZZ_SANITIZER=address builds with AddressSanitizer (the recorded long
# runs: the JSON scans load 16 bytes at a time with SSE2).
export RUSTC_BOOTSTRAP=1
export RUSTFLAGS="${RUSTFLAGS:-} -Coverflow-checks=off"
set -- --sanitizer "${FUZZ_SANITIZER:-none}"

if ! $cargo fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz is missing; installing it with cargo install" >&2
    $cargo install cargo-fuzz --locked
fi

nice -n "$nice_level" $cargo fuzz build "$@"

host=$(rustc -vV | sed -n 's/^host: //p')

# Writes 40 small generated requests (every request kind, 3-12 nodes) into
# the corpus directory $1, by running the cluster target on unmutated
# parameters with CLUSTER_DUMP (see fuzz_targets/cluster.rs). They give the
# byte-level pipeline target realistic clusters to mutate.
generated_seeds() {
    tmp=$(mktemp -d)
    for k in 0 1 2 3 4 5 6 7; do
        for s in 1 2 3 4 5; do
            # seed (8 bytes, little endian), kind, node count
            printf "$(printf '\\%03o' $((s * 37 + k)))\\000\\000\\000\\000\\000\\000\\000$(printf '\\%03o' "$k")$(printf '\\%03o' $(((s * 3 + k) % 10 + 1)))" >"$tmp/in"
            CLUSTER_DUMP="$tmp/out" "fuzz/target/$host/release/cluster" "$tmp/in" >/dev/null 2>&1 || true
            if [ -s "$tmp/out" ]; then mv "$tmp/out" "$1/gen-k$k-s$s.json"; fi
        done
    done
    rm -rf "$tmp"
}

mkdir -p fuzz/logs
failed=""
for t in $targets; do
    mkdir -p "fuzz/corpus/$t"
    dict=""  # per-target libFuzzer flags
    case $t in
        parse | pipeline)
            # Seed corpus: the bundled protocol samples (and, for the
            # pipeline, generated clusters).
            cp protocol-samples/*.json "fuzz/corpus/$t/"
            if [ "$t" = pipeline ]; then generated_seeds "fuzz/corpus/$t"; fi
            dict="-dict=$root/fuzz/json.dict"
            ;;
        datafile)
            # Seed corpus: the data files hailstone saves for the samples.
            [ -x target/release/hailstone ] || $cargo build --release -p hailstone
            for f in protocol-samples/*.json; do
                n=$(basename "$f" .json)
                target/release/hailstone "$f" -S "fuzz/corpus/$t/$n" >/dev/null 2>&1 || true
            done
            ;;
        live)
            # Seed corpus: captured Luxi replies (four messages, each
            # ending in 0x03) and RAPI resources joined the same way.
            cp tests/live/*.luxi "fuzz/corpus/$t/"
            for d in tests/live/*.rapi; do
                for r in groups nodes instances info; do
                    cat "$d/$r.json"
                    printf '\003'
                done >"fuzz/corpus/$t/$(basename "$d")"
            done
            dict="-dict=$root/fuzz/json.dict"
            ;;
        replies)
            # Seed corpus: captured job-status replies, monitoring data
            # and a utilisation file.
            tr '\003' '\n' <tests/live/repair-jobs.luxi | while IFS= read -r line; do
                [ -n "$line" ] && printf '%s' "$line" >"fuzz/corpus/$t/jobs-$(printf '%s' "$line" | cksum | cut -d' ' -f1)"
            done
            cp tests/live/*.mond.json "fuzz/corpus/$t/"
            printf 'inst1 0.5 1.0 0.25 0\ninst2 1 2 3 4\n' >"fuzz/corpus/$t/util"
            dict="-dict=$root/fuzz/json.dict"
            ;;
        cli)
            # Seed corpus: a command line of each program (first byte),
            # arguments separated by NUL bytes.
            i=0
            for args in '-t\000f.data\000-C\000-v' '--help' '-p\000--print-instances' '-l\0005\000-G\000g' '--simulate=p,3,100g,16g,8' '--target-resources=2\000-X'; do
                printf "\\$(printf '%03o' "$i")$args" >"fuzz/corpus/$t/seed-$i"
                i=$((i + 1))
            done
            ;;
        cluster)
            # Parameters (10 bytes) and up to eight 5-byte mutations: use
            # the whole length at once instead of growing it slowly.
            dict="-max_len=50 -len_control=0"
            ;;
    esac
    log="fuzz/logs/$t.log"
    echo "== $t: ${secs}s (log: $log)"
    status=0
    # shellcheck disable=SC2086 # FUZZ_ARGS and dict are word lists
    nice -n "$nice_level" $cargo fuzz run "$@" "$t" -- \
        -max_total_time="$secs" -timeout=120 -print_final_stats=1 \
        $dict ${FUZZ_ARGS:-} >"$log" 2>&1 || status=$?
    # The final coverage line and the execution count.
    grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true
    grep -E '^(Done [0-9]+ runs|stat::number_of_executed_units|stat::average_exec_per_sec)' "$log" || true
    if [ "$status" -ne 0 ]; then
        echo "!! $t failed (exit $status):"
        grep -E 'panicked at|^SUMMARY|Test unit written to|ERROR: libFuzzer' "$log" || tail -n 20 "$log"
        failed="$failed $t"
    fi
done

if [ -n "$failed" ]; then
    echo "fuzz: failures in:$failed (artifacts under fuzz/artifacts/)" >&2
    exit 1
fi
