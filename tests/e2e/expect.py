#!/usr/bin/python3
"""Reads hailstone's captured iallocator calls (tests/e2e/run.sh).

Each call Ganeti made is a trio in the capture directory:
  NNN.request.json   the request file Ganeti handed over
  NNN.args           the options after it, one per line
  NNN.answer.json    what the installed hailstone printed

usage:
  expect.py placements CALL   what the answer of CALL says Ganeti must do,
                              one line per instance: "NAME NODE [NODE]"
                              (primary first); nothing for a refusal
  expect.py describe CALL     "TYPE NAME|NAMES success|refused"
  expect.py accepted CALL LOG  whether the command output LOG shows that
                              Ganeti took the answer of CALL as given (the
                              nodes it logs for each instance); for the
                              commands whose disk work fails on the lab's
                              kernel after that
  expect.py hail-args CALL    the options to give hail for the same call
                              (hailstone's flag values =yes/=no turned into
                              hail's bare flags, hailstone-only options
                              left out), one per line

Exit status 1 with a message on stderr when a file is missing or is not
what Ganeti and hailstone write.
"""

import json
import sys


def load(call):
    with open(call + ".request.json") as f:
        request = json.load(f)["request"]
    with open(call + ".answer.json") as f:
        answer = json.load(f)
    return request, answer


def names(request):
    kind = request["type"]
    if kind in ("allocate", "relocate", "allocate-secondary"):
        return [request["name"]]
    if kind == "multi-allocate":
        return [i["name"] for i in request["instances"]]
    return list(request["instances"])


def placements(request, answer):
    if not answer["success"]:
        return []
    kind = request["type"]
    result = answer["result"]
    if kind == "allocate":
        return [[request["name"]] + result]
    if kind == "relocate":
        # The new node replaces the one relocated from (for externally
        # mirrored instances the primary, for drbd the secondary).
        return [[request["name"]] + result]
    if kind == "multi-allocate":
        allocated, _failed = result
        return [[name] + nodes for name, nodes in allocated]
    if kind in ("node-evacuate", "change-group"):
        moved, _failed, _jobs = result
        return [[name] + nodes for name, _group, nodes in moved]
    raise ValueError("request type %r not handled" % kind)


HAILSTONE_ONLY = ("--explain", "--explain-format", "--explain-keep",
                  "--inter-group-evacuation",
                  "--n1-rule", "--ganeti-version")
FLAGS = ("--no-capacity-checks", "--ignore-soft-errors", "--ignore-dynu",
         "--mond-xen")


def hail_args(call):
    out = []
    with open(call + ".args") as f:
        for line in f.read().splitlines():
            if not line:
                continue
            key, eq, value = line.partition("=")
            if key in HAILSTONE_ONLY:
                continue
            if key in FLAGS and eq:
                if value in ("yes", "true"):
                    out.append(key)
                continue
            out.append(line)
    return out


def accepted(request, answer, log):
    """The lines Ganeti logs when it takes the answer, all present in LOG."""
    kind = request["type"]
    wanted = []
    for place in placements(request, answer):
        name, nodes = place[0], place[1:]
        if kind == "allocate":
            wanted.append("Selected nodes for instance %s via iallocator "
                          "hailstone: %s" % (name, ", ".join(nodes)))
        elif kind == "relocate":
            # Ganeti names the instance by its UUID here.
            wanted.append("Selected new secondary for instance '")
            wanted.append("': %s" % nodes[0])
        else:
            wanted.append("%s (to %s)" % (name, ", ".join(nodes)))
    missing = [w for w in wanted if w not in log]
    return bool(wanted) and not missing


def main(argv):
    if len(argv) == 4 and argv[1] == "accepted":
        try:
            request, answer = load(argv[2])
            with open(argv[3]) as f:
                log = f.read()
        except (OSError, ValueError, KeyError) as e:
            sys.stderr.write("expect.py accepted %s: %s\n" % (argv[2], e))
            sys.exit(1)
        sys.exit(0 if accepted(request, answer, log) else 1)
    if len(argv) != 3:
        sys.exit(__doc__)
    what, call = argv[1], argv[2]
    try:
        if what == "hail-args":
            for a in hail_args(call):
                print(a)
            return
        request, answer = load(call)
        if what == "placements":
            for p in placements(request, answer):
                print(" ".join(p))
        elif what == "describe":
            state = "success" if answer["success"] else "refused"
            print(request["type"], ",".join(names(request)), state)
        else:
            sys.exit(__doc__)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write("expect.py %s %s: %s\n" % (what, call, e))
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv)
