#!/usr/bin/env python3
"""Writes the varied live-cluster fixtures from one description, as Luxi
replies (`NAME.luxi`, messages ending in 0x03, in hbal's query order) and
RAPI resources (`NAME.rapi/`): two node groups, a drained, an offline and
a non-vm-capable node, drbd instances with secondaries, tags (exclusion
and location), unavailable fields, a KVM cluster. `field-error` breaks
one online node's memory (status 3); `unknown-node` names a missing
primary. `rolling` is a one-group ring of drbd instances with one
instance of each other template, for `hailstone-roll -X`; `repair` has
offline and drained nodes under instances carrying harep's auto-repair
tags (enabled, suspended, pending, results), with `repair-jobs.luxi`
the statuses of its pending jobs, for `hailstone-repair`. Usage: vary.py
OUTDIR (the lab capture's policy is reused)."""
import copy, json, os, sys

out = sys.argv[1]
G1, G2 = "7620b85b-af3f-4450-9112-96bbd88fcc3f", "9c8a8345-81b3-45ca-b3a1-4606a5f64692"
spec = {"memory-size": 128, "disk-size": 1024, "disk-count": 1, "cpu-count": 1, "nic-count": 1, "spindle-use": 1}
mx = {"memory-size": 32768, "disk-size": 1048576, "disk-count": 16, "cpu-count": 8, "nic-count": 8, "spindle-use": 12}
ipol = {"minmax": [{"min": spec, "max": mx}], "std": spec, "spindle-ratio": 32, "vcpu-ratio": 4,
        "disk-templates": ["drbd", "plain", "diskless", "file", "sharedfile"]}
groups = [("default", G1, "preferred", ["gtag"]), ("g2", G2, "last_resort", [])]
# name, group, mfree, dfree, offline, drained, vm_capable, tags
nodes = [
    ("node1.example.com", G1, 9000, 200000, False, False, True, ["rack:a"]),
    ("node2.example.com", G1, 22000, 250000, False, True, True, ["rack:a"]),
    ("node3.example.com", G1, 23000, 250000, False, False, True, ["rack:b"]),
    ("node4.example.com", G1, 0, 0, True, False, True, []),
    ("node5.example.com", G2, 20000, 240000, False, False, True, ["rack:c"]),
    ("node6.example.com", G2, 0, 0, False, False, False, []),
]
# name, pnode, snode, mem, disk, template, status, tags
insts = [
    ("web1.example.com", "node1.example.com", "node2.example.com", 4096, 10240, "drbd", "running", ["service:web"]),
    ("web2.example.com", "node1.example.com", "node3.example.com", 4096, 10240, "drbd", "running", ["service:web"]),
    ("db1.example.com", "node1.example.com", "node3.example.com", 2048, 20480, "drbd", "ADMIN_down", []),
    ("plain1.example.com", "node1.example.com", None, 1024, 5120, "plain", "running", []),
    ("plain2.example.com", "node5.example.com", None, 1024, 5120, "plain", "running", ["x"]),
    ("off1.example.com", "node4.example.com", None, 512, 0, "diskless", "ERROR_nodeoffline", []),
]
ctags = ["htools:iextags:service", "htools:nlocation:rack"]

ring = [("node%d.example.com" % k, G1, 20000, 250000, False, False, True, []) for k in range(1, 6)]
ring_insts = [("d%d.example.com" % k, "node%d.example.com" % k, "node%d.example.com" % (k % 5 + 1),
               2048, 10240, "drbd", "ADMIN_down" if k == 5 else "running", []) for k in range(1, 6)]
ring_insts += [
    ("p1.example.com", "node2.example.com", None, 1024, 5120, "plain", "running", []),
    ("s1.example.com", "node3.example.com", None, 1024, 10240, "sharedfile", "running", []),
    ("x1.example.com", "node4.example.com", None, 512, 0, "diskless", "running", []),
    ("f1.example.com", "node5.example.com", None, 1024, 5120, "file", "running", []),
]

AR = "ganeti:watcher:autorepair:"
repair_nodes = [
    ("node1.example.com", G1, 20000, 250000, False, False, True, []),
    ("node2.example.com", G1, 20000, 250000, False, False, True, []),
    ("node3.example.com", G1, 0, 0, True, False, True, []),
    ("node4.example.com", G1, 20000, 250000, False, True, True, []),
    ("node5.example.com", G1, 20000, 250000, False, False, True, []),
]
repair_insts = [
    ("r1.example.com", "node3.example.com", "node1.example.com", 1024, 10240, "drbd", "ERROR_nodeoffline", []),
    ("r2.example.com", "node1.example.com", "node3.example.com", 1024, 10240, "drbd", "running", []),
    ("r3.example.com", "node3.example.com", None, 1024, 5120, "plain", "ERROR_nodeoffline", []),
    ("r4.example.com", "node3.example.com", "node4.example.com", 1024, 10240, "drbd", "ERROR_nodeoffline", []),
    ("r5.example.com", "node3.example.com", "node2.example.com", 1024, 10240, "drbd", "ERROR_nodeoffline",
     [AR + "suspend:"]),
    ("r6.example.com", "node3.example.com", None, 1024, 5120, "plain", "ERROR_nodeoffline", [AR + "reinstall"]),
    ("r7.example.com", "node1.example.com", "node2.example.com", 1024, 10240, "drbd", "running",
     [AR + "result:failover:uuid-a:1700000000:success:12"]),
    ("r8.example.com", "node1.example.com", "node2.example.com", 1024, 10240, "drbd", "running",
     [AR + "pending:migrate:uuid-b:1700000100:15+16"]),
    ("r9.example.com", "node3.example.com", None, 512, 0, "diskless", "ERROR_nodeoffline", []),
    ("r10.example.com", "node5.example.com", "node1.example.com", 1024, 10240, "drbd", "running",
     [AR + "result:fix-storage:uuid-c:1700000200:failure:20", AR + "result:migrate:uuid-d:1700000300:success:21"]),
    ("r11.example.com", "node2.example.com", "node3.example.com", 1024, 10240, "drbd", "running",
     [AR + "pending:bogus", AR + "suspend:4102444800"]),
    ("r12.example.com", "node5.example.com", "node4.example.com", 1024, 10240, "drbd", "running",
     [AR + "migrate"]),
]

def luxi(kind, nodes=nodes, insts=insts, groups=groups, ctags=ctags):
    def f(v, st=0): return [st, v]
    nrows = []
    for (n, g, mfree, dfree, off, dr, vm, tags) in nodes:
        live = not off and vm
        lv = (lambda v: f(v)) if live else (lambda v: f(None, 4 if off else 3))
        mt = f(None, 3) if (kind == "field-error" and n == "node3.example.com") else lv(32768)
        nrows.append([f(n), mt, lv(1024), lv(mfree), lv(300000), lv(dfree), lv(8), lv(1),
                      f(off), f(dr), f(vm), f(1), f(g), f(tags), f(False), f(None, 2), f(None, 2), f(1.5)])
    irows = []
    for (i, p, s, mem, dsk, t, st, tags) in insts:
        if kind == "unknown-node" and i == "plain2.example.com": p = "node9.example.com"
        sizes = [] if t == "diskless" else [dsk // 2 if t == "drbd" else dsk]
        irows.append([f(i), f(dsk), f(mem), f(2), f(st), f(p), f([s] if s else []), f(tags), f(True),
                      f(t), f(1), f(sizes), f([None] * len(sizes)), f(False)])
    grows = [[f(u), f(n), f(a), f(ipol), f(tags)] for (n, u, a, tags) in groups]
    info = {"name": "cluster.example.com", "master": "node1.example.com", "default_hypervisor": "kvm",
            "tags": ctags, "ipolicy": ipol, "enabled_hypervisors": ["kvm"]}
    msgs = [{"success": True, "result": {"fields": [], "data": nrows}},
            {"success": True, "result": {"fields": [], "data": irows}},
            {"success": True, "result": info},
            {"success": True, "result": {"fields": [], "data": grows}}]
    return b"".join(json.dumps(m).encode() + b"\x03" for m in msgs)

def rapi(d):
    os.makedirs(d, exist_ok=True)
    gs = [{"name": n, "uuid": u, "alloc_policy": a, "ipolicy": ipol, "tags": tags} for (n, u, a, tags) in groups]
    ns = []
    for (n, g, mfree, dfree, off, dr, vm, tags) in nodes:
        live = not off and vm
        v = (lambda x: x) if live else (lambda x: None)
        ns.append({"name": n, "offline": off, "drained": dr, "vm_capable": vm, "group.uuid": g,
                   "ndparams": {"spindle_count": 1, "exclusive_storage": False, "cpu_speed": 1.5},
                   "mtotal": v(32768), "mnode": v(1024), "mfree": v(mfree), "dtotal": v(300000),
                   "dfree": v(dfree), "ctotal": v(8), "cnos": v(1), "sptotal": None, "spfree": None, "tags": tags})
    ist = []
    for (i, p, s, mem, dsk, t, st, tags) in insts:
        sizes = [] if t == "diskless" else [dsk // 2 if t == "drbd" else dsk]
        ist.append({"name": i, "pnode": p, "snodes": [s] if s else [], "disk_usage": dsk, "disk.sizes": sizes,
                    "disk.spindles": [None] * len(sizes), "status": st, "tags": tags, "disk_template": t,
                    "oper_ram": 700 if i == "plain1.example.com" else None,
                    "beparams": {"memory": mem, "maxmem": mem, "vcpus": 2, "auto_balance": True, "spindle_use": 1}})
    info = {"name": "cluster.example.com", "master": "node1.example.com", "default_hypervisor": "kvm",
            "tags": ctags, "ipolicy": ipol}
    for name, v in [("groups", gs), ("nodes", ns), ("instances", ist), ("info", info)]:
        with open(os.path.join(d, name + ".json"), "w") as fh: json.dump(v, fh, indent=1)

os.makedirs(out, exist_ok=True)
for kind in ["varied", "field-error", "unknown-node"]:
    open(os.path.join(out, kind + ".luxi"), "wb").write(luxi(kind))
open(os.path.join(out, "repair.luxi"), "wb").write(
    luxi("repair", repair_nodes, repair_insts, [("default", G1, "preferred", [])], [AR + "failover"]))
open(os.path.join(out, "repair-jobs.luxi"), "wb").write(
    json.dumps({"success": True, "result": [["success"], ["error"]]}).encode() + b"\x03")
open(os.path.join(out, "rolling.luxi"), "wb").write(
    luxi("rolling", ring, ring_insts, [("default", G1, "preferred", [])], []))
rapi(os.path.join(out, "varied.rapi"))
