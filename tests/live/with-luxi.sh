#!/bin/bash
# with-luxi.sh REPLIES SOCK cmd...: runs cmd while a replay server serves REPLIES on SOCK
r=$1; s=$2; shift 2; rm -f $s
python3 "$(dirname "$0")"/luxi-replay.py $s $r & pid=$!
for i in $(seq 50); do [ -S $s ] && break; sleep 0.1; done
"$@"; rc=$?; kill $pid; wait $pid 2>/dev/null; exit $rc
