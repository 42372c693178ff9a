#!/usr/bin/env python3
"""Build hailstone's own protocol samples (iallocator requests, protocol 2).

Run:  python3 protocol-samples/build.py          (regenerates every sample)
      python3 protocol-samples/build.py --check  (then runs hail and
                                                  hailstone on each and
                                                  reports differences)

Most requests are built the way a Ganeti 3.0 master builds them: the cluster
spec below is handed to /work/shared/tools/ganeti_request.py, which runs
Ganeti's own logical units (gnt-instance add, gnt-node evacuate, ... or
gnt-debug allocator for the OpTestAllocator path) and captures the exact
request text.  That needs Ganeti's Python code and test mocks
(`bash /work/shared/tools/install-ganeti-client.sh`).  Ganeti's random MACs
and UUIDs and Python's hash seed are pinned so that every run produces the
same bytes.

Where the tool cannot express a feature (networks, forthcoming instances, an
outer group_name on multi-allocate, a partial restrict-to-nodes list, broken
input), the sample says so and the captured request is edited afterwards by
an explicitly named function (see EDITS below).  The few trivially small
invalid inputs are written directly.

The requests are then written pretty-printed, keys in the order Ganeti emits
them (node and instance order matter to hail).
"""

import copy
import json
import os
import subprocess
import sys
import tempfile
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.environ.get("GANETI_TOOLS_DIR", "/work/shared/tools")
GANETI_PYTHON = "/usr/bin/python3"
HAIL = "/usr/lib/ganeti/iallocators/hail"
HAILSTONE = os.path.join(HERE, "..", "target", "debug", "hailstone")

# Runs ganeti_request.py with deterministic randomness.  Argument 1 is a JSON
# object of "hooks": opcode changes a gnt-* command line could make but the
# tool has no option for (per-disk spindles, extstorage provider, ...).
WRAPPER = r'''
import importlib.util, itertools, json, os, random, sys, uuid
tool, hooks = sys.argv[1], json.loads(sys.argv[2])
_ctr = itertools.count(1)
def _uuid4():
    return uuid.UUID(int=(0x5eed << 96) | next(_ctr), version=4)
uuid.uuid4 = _uuid4
random.seed(20240501)
sys.path.insert(0, os.path.dirname(tool))
spec = importlib.util.spec_from_file_location("ganeti_request", tool)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
from ganeti.utils import io as _gio
import ganeti.utils as _gu
_gio.NewUUID = _gu.NewUUID = lambda: str(_uuid4())
_build = mod.BuildOpcode
def BuildOpcode(args, cfg):
    op = _build(args, cfg)
    ops = getattr(op, "instances", None) or [op]
    for sub in ops:
        disks = getattr(sub, "disks", None) or []
        for i, d in enumerate(disks):
            if "disk_spindles" in hooks:
                d["spindles"] = hooks["disk_spindles"][i]
            if "ext_provider" in hooks:
                d["provider"] = hooks["ext_provider"]
    return op
mod.BuildOpcode = BuildOpcode
_build_config = mod.genv.BuildConfig
def BuildConfig(*a, **kw):
    cfg = _build_config(*a, **kw)
    for name in hooks.get("forthcoming", []):
        cfg.GetInstanceInfo(cfg.inst_uuid_by_name[name]).forthcoming = True
    return cfg
mod.genv.BuildConfig = BuildConfig
sys.exit(mod.main(sys.argv[3:]))
'''

DOMAIN = ".example.com"


def n(i):
  """Name of node i."""
  return "node%d%s" % (i, DOMAIN)


# ---------------------------------------------------------------------------
# cluster spec helpers (the format of /work/shared/tools/examples/*.json)

def node(group=None, mem=32768, dom0=4096, cpus=8, cpu_dom0=1,
         disk=1048576, tags=(), **extra):
  d = OrderedDict()
  if group is not None:
    d["group"] = group
  if not extra.get("offline"):
    d.update([("memory_total", mem), ("memory_dom0", dom0),
              ("cpu_total", cpus), ("cpu_dom0", cpu_dom0),
              ("disk_total", disk)])
  if tags:
    d["tags"] = list(tags)
  d.update(extra)
  return d


def inst(nodes, template="drbd", disks=(10240,), memory=2048, vcpus=1,
         up=True, tags=(), spindles=None, nics=1, forthcoming=False):
  d = OrderedDict()
  d["nodes"] = [n(x) if isinstance(x, int) else x for x in nodes]
  d["disk_template"] = template
  dl = []
  for k, size in enumerate(disks):
    dd = OrderedDict([("size", size)])
    if spindles is not None:
      dd["spindles"] = spindles[k]
    dl.append(dd)
  d["disks"] = dl
  d["memory"] = memory
  d["vcpus"] = vcpus
  d["admin_state"] = "up" if up else "down"
  d["os"] = "debootstrap+default"
  d["tags"] = list(tags)
  # MACs are assigned by cluster(), in instance order
  d["nics"] = [OrderedDict([("mac", None), ("mode", "bridged"),
                            ("link", "br0")]) for _ in range(nics)]
  if forthcoming:
    # not running anywhere yet (the tool's hypervisor stand-in reports it
    # stopped; the wrapper marks it forthcoming in Ganeti's config)
    d["run_state"] = "down"
    d["_forthcoming"] = True
  return d


def disk_space(template, disks):
  per = {"drbd": 128}.get(template, 0)
  if template in ("diskless", "blockdev"):
    return 0
  return sum(d["size"] + per for d in disks)


def cluster(nodes, instances=None, groups=None, hv="kvm", tags=(),
            templates=("drbd", "plain", "file", "sharedfile", "blockdev",
                       "rbd", "ext", "gluster", "diskless")):
  """A spec whose node free values are consistent with its instances:
  free memory = total - dom0 - running primaries' memory,
  free disk = total - disk_space_total of plain/drbd primaries+secondaries,
  free spindles = total - spindles of those disks.
  Explicit memory_free / disk_free / spindles_free in a node win."""
  spec = OrderedDict()
  spec["cluster_name"] = "cluster" + DOMAIN
  spec["enabled_hypervisors"] = [hv] if isinstance(hv, str) else list(hv)
  spec["enabled_disk_templates"] = list(templates)
  spec["cluster_tags"] = list(tags)
  spec["groups"] = groups or OrderedDict([("default", {"alloc_policy":
                                                        "preferred"})])
  nodes = OrderedDict((n(k) if isinstance(k, int) else k, copy.deepcopy(v))
                      for k, v in nodes)
  instances = OrderedDict((k + DOMAIN if "." not in k else k, v)
                          for k, v in (instances or []))
  macs = 0
  for iv in instances.values():
    for nic in iv["nics"]:
      macs += 1
      nic["mac"] = "aa:00:00:00:00:%02x" % macs
  for name, nd in nodes.items():
    if nd.get("offline"):
      continue
    used_mem = 0
    used_dsk = 0
    used_sp = 0
    for iv in instances.values():
      if iv.get("_forthcoming"):
        continue
      if iv["nodes"][0] == name and iv["admin_state"] == "up":
        used_mem += iv["memory"]
      if name in iv["nodes"][:2] and iv["disk_template"] in ("plain", "drbd"):
        used_dsk += disk_space(iv["disk_template"], iv["disks"])
        used_sp += sum(d.get("spindles") or 0 for d in iv["disks"])
    nd.setdefault("memory_free",
                  nd["memory_total"] - nd["memory_dom0"] - used_mem)
    nd.setdefault("disk_free", nd["disk_total"] - used_dsk)
    if "spindles_total" in nd:
      nd.setdefault("spindles_free", nd["spindles_total"] - used_sp)
  spec["nodes"] = nodes
  spec["instances"] = instances
  return spec


def groups(*items):
  """groups(("default", "preferred"), ("rack2", "last_resort", {...}), ...)"""
  out = OrderedDict()
  for it in items:
    g = OrderedDict([("alloc_policy", it[1])])
    if len(it) > 2:
      g.update(it[2])
    out[it[0]] = g
  return out


def ispec(mem, cpu, dsk, dcount=1, nics=1, su=1):
  return OrderedDict([("cpu-count", cpu), ("disk-count", dcount),
                      ("disk-size", dsk), ("memory-size", mem),
                      ("nic-count", nics), ("spindle-use", su)])


def minmax(lo, hi):
  return OrderedDict([("min", lo), ("max", hi)])


# ---------------------------------------------------------------------------
# running the tool

def run_tool(spec, argv, hooks=None):
  with tempfile.TemporaryDirectory() as tmp:
    spath = os.path.join(tmp, "spec.json")
    opath = os.path.join(tmp, "request.json")
    with open(spath, "w", encoding="utf-8") as fh:
      json.dump(spec, fh, indent=1)
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    cmd = [GANETI_PYTHON, "-c", WRAPPER,
           os.path.join(TOOLS, "ganeti_request.py"), json.dumps(hooks or {}),
           spath, argv[0], "-o", opath] + list(argv[1:])
    proc = subprocess.run(cmd, env=env, cwd=tmp, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode != 0 or not os.path.exists(opath):
      sys.stderr.write(proc.stderr)
      raise SystemExit("ganeti_request.py failed for %s" % (argv,))
    with open(opath, encoding="utf-8") as fh:
      return json.load(fh, object_pairs_hook=OrderedDict)


# ---------------------------------------------------------------------------
# output format: 2-space indentation, short leaf containers on one line

WIDTH = 120


def _inline(v):
  return json.dumps(v, ensure_ascii=False)


def render(v, indent=0, prefix_len=0):
  if isinstance(v, (dict, list)) and v:
    flat = _inline(v)
    nested = any(isinstance(x, (dict, list)) and x
                 for x in (v.values() if isinstance(v, dict) else v))
    if not nested and indent + prefix_len + len(flat) <= WIDTH:
      return flat
    pad = " " * (indent + 2)
    if isinstance(v, dict):
      items = []
      for k, x in v.items():
        key = _inline(k) + ": "
        items.append(pad + key + render(x, indent + 2, len(key)))
      return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + render(x, indent + 2, 0) for x in v]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
  return _inline(v)


# ---------------------------------------------------------------------------
# EDITS: changes to a captured request for what the tool cannot express

def edit_restrict(req, names):
  """Opportunistic locking got only some node locks: Ganeti then sends the
  locked nodes as restrict-to-nodes (the tool's lock mock grants all)."""
  req["request"]["restrict-to-nodes"] = list(names)
  return req


NET_A = "3f2e8c6a-0b7d-5e41-9c1a-6d0f5b2a7e11"
NET_B = "8a41d2f0-6c3b-5f7e-a2d9-1b4c7e9f0a22"


def edit_network(req, group_networks, nic_network):
  """Networks: the tool's config has none.  Connect groups (by name) to
  network UUIDs and put the new instance's first NIC on one, as Ganeti
  does for gnt-instance add --net 0:network=NAME."""
  for g in req["nodegroups"].values():
    g["networks"] = list(group_networks.get(g["name"], []))
  nic = req["request"]["nics"][0]
  new = OrderedDict()
  for k, v in nic.items():
    if k == "nicparams":
      new["network"] = nic_network
    new[k] = v
  req["request"]["nics"][0] = new
  return req


def edit_forthcoming(req, names):
  """Forthcoming instances: Ganeti 3.0 keeps the flag in its config but does
  not export it; hail reads an optional "forthcoming" key per instance."""
  for name in names:
    req["instances"][name]["forthcoming"] = True
  return req


def edit_multi_group(req, group):
  """hail reads group_name of a multi-allocate from the outer request only
  (Ganeti sends it per instance); put it there."""
  r = req["request"]
  for sub in r["instances"]:
    sub["group_name"] = group
  new = OrderedDict()
  for k, v in r.items():
    if k == "type":
      new["group_name"] = group
    new[k] = v
  req["request"] = new
  return req


# ---------------------------------------------------------------------------
# the samples

SAMPLES = []   # (file name, builder, hail options, README line)


def sample(name, args=(), readme=""):
  def deco(fn):
    SAMPLES.append((name, fn, list(args), readme))
    return fn
  return deco


def alloc_argv(name="new1", template="drbd", disks=(10240,), memory=2048,
               vcpus=1, tags=(), group=None, extra=()):
  argv = ["allocate", "--name", name + DOMAIN, "-t", template,
          "--memory", str(memory), "--vcpus", str(vcpus)]
  for s in disks:
    argv += ["--disk", str(s)]
  for t in tags:
    argv += ["--tag", t]
  if group:
    argv += ["--group", group]
  return argv + list(extra)


def testalloc_argv(mode, **kw):
  argv = ["test-allocator", "--test-mode", mode]
  for k, v in kw.items():
    flag = "--" + k.replace("_", "-")
    for x in (v if isinstance(v, (list, tuple)) else [v]):
      argv += [flag, str(x)]
  return argv


def base4(hv="kvm", tags=()):
  """Four equal nodes in one group: two drbd instances (node1/node2,
  node2/node3), a stopped plain one on node3 and an ext one on node2;
  node4 is empty."""
  return cluster(
    [(1, node()), (2, node()), (3, node()), (4, node())],
    [("web1", inst([1, 2], memory=2048, vcpus=2)),
     ("db1", inst([2, 3], memory=4096, vcpus=4, disks=(20480, 4096))),
     ("files1", inst([3], template="plain", disks=(51200,), memory=1024,
                     up=False)),
     ("app1", inst([2], template="ext", disks=(8192,), memory=1024))],
    hv=hv, tags=tags)


def shared4(hv="kvm", tags=()):
  """Four equal nodes in one group with only externally stored instances
  (no plain/drbd: for a shared-storage request Ganeti reports 0 node disk,
  so local-disk instances could never be re-created by the N+1 check)."""
  return cluster(
    [(1, node()), (2, node()), (3, node()), (4, node())],
    [("vm1", inst([1], template="rbd", disks=(20480,), memory=4096, vcpus=2)),
     ("vm2", inst([2], template="rbd", disks=(10240,), memory=2048)),
     ("vm3", inst([3], template="ext", disks=(10240,), memory=2048)),
     ("vm4", inst([1], template="diskless", disks=(), memory=1024))],
    hv=hv, tags=tags)


# --- allocate, one sample per disk template ---------------------------------

@sample("allocate-drbd.json", readme=(
        'drbd template; the node-pair search: every ordered (primary, '
        'secondary) pair of the 4 nodes is scored (`successes 12`) and hail '
        'answers the empty node4 as primary with node1 as secondary. '
        '[gnt-instance add]'))
def _():
  return run_tool(base4(), alloc_argv("new1", "drbd", (10240,), 2048, 2))


@sample("allocate-plain.json", readme=(
        'plain template (`required_nodes` 1): hail places it on the empty '
        'node4 (score 2.507; node1 4.055, node3 4.233, node2 5.334). '
        '[gnt-instance add]'))
def _():
  return run_tool(base4(), alloc_argv("new1", "plain", (10240,), 2048, 2))


@sample("allocate-file.json", readme=(
        'file template: Ganeti reports the file storage as node disk; hail '
        'answers node4. [gnt-instance add]'))
def _():
  return run_tool(base4(), alloc_argv("new1", "file", (10240,), 2048, 2))


@sample("allocate-sharedfile.json", readme=(
        'sharedfile template on a cluster with only externally stored '
        'instances (Ganeti reports 0 node disk for it); hail answers node4. '
        '[gnt-debug allocator: gnt-instance add needs a shared file storage '
        'dir]'))
def _():
  return run_tool(shared4(), testalloc_argv(
    "allocate", name="new1" + DOMAIN, disk_template="sharedfile",
    disk=10240, memory=2048, vcpus=2, hypervisor="kvm"))


@sample("allocate-blockdev.json", readme=(
        'blockdev template (`disk_space_total` 0); hail answers node4. '
        '[gnt-debug allocator: gnt-instance add refuses blockdev without '
        'adoption]'))
def _():
  return run_tool(shared4(), testalloc_argv(
    "allocate", name="new1" + DOMAIN, disk_template="blockdev",
    disk=10240, memory=2048, vcpus=2, hypervisor="kvm"))


@sample("allocate-rbd.json", readme=(
        'rbd template; hail answers node4. [gnt-instance add]'))
def _():
  return run_tool(shared4(), alloc_argv("new1", "rbd", (10240,), 2048, 2))


@sample("allocate-ext.json", readme=(
        'ext template (disk with `provider`); hail answers node4. '
        '[gnt-instance add, disk provider set]'))
def _():
  return run_tool(shared4(), alloc_argv("new1", "ext", (10240,), 2048, 2),
                  hooks={"ext_provider": "pvs"})


@sample("allocate-gluster.json", readme=(
        'gluster template; hail answers node4. [gnt-debug allocator: '
        'gnt-instance add needs a gluster storage dir]'))
def _():
  return run_tool(shared4(), testalloc_argv(
    "allocate", name="new1" + DOMAIN, disk_template="gluster",
    disk=10240, memory=2048, vcpus=2, hypervisor="kvm"))


@sample("allocate-diskless.json", readme=(
        'diskless template (`disk_space_total` 0); hail answers node4. '
        '[gnt-instance add]'))
def _():
  return run_tool(shared4(), alloc_argv("new1", "diskless", (1024,), 2048, 2))


def twogroups(hv="kvm", tags=(), policies=("preferred", "preferred")):
  """Group "default" (node1-node3, busy) and group "rack2" (node4-node5,
  empty)."""
  return cluster(
    [(1, node()), (2, node()), (3, node()),
     (4, node("rack2")), (5, node("rack2"))],
    [("web1", inst([1, 2], memory=2048, vcpus=2)),
     ("db1", inst([2, 3], memory=4096, vcpus=4, disks=(20480, 4096))),
     ("app1", inst([1], template="plain", disks=(8192,), memory=1024))],
    groups=groups(("default", policies[0]), ("rack2", policies[1])),
    hv=hv, tags=tags)


# --- the other request types -----------------------------------------------

@sample("multi-allocate.json", readme=(
        'three drbd instances in one request; each placement sees the '
        'previous ones: node4/node1, node3/node4, node1/node4, `0 instances '
        'failed to allocate and 3 were allocated successfully`. [gnt-instance'
        ' batch-create (OpInstanceMultiAlloc)]'))
def _():
  return run_tool(base4(), ["multi-allocate", "--name", "new1" + DOMAIN,
                            "--name", "new2" + DOMAIN, "--name",
                            "new3" + DOMAIN, "-t", "drbd", "--disk", "10240",
                            "--memory", "2048", "--vcpus", "2"])


@sample("relocate-drbd.json", readme=(
        'relocate (change the secondary) of drbd web1 away from node2 '
        '(`relocate_from`); hail answers `["node4.example.com"]`, info '
        '`success`. [gnt-instance replace-disks -I]'))
def _():
  return run_tool(base4(), ["relocate", "--instance", "web1" + DOMAIN])


@sample("node-evacuate-primary-only.json", readme=(
        'node-evacuate primary-only of node2: drbd db1 is failed over to its '
        'secondary node3 (OP_INSTANCE_MIGRATE without target) and ext app1 '
        'migrates to node4 (OP_INSTANCE_MIGRATE with `target_node`). '
        '[gnt-node evacuate -p]'))
def _():
  return run_tool(base4(), ["node-evacuate", "--node", n(2),
                            "--evac-mode", "primary-only"])


@sample("node-evacuate-secondary-only.json", readme=(
        "node-evacuate secondary-only of node2: web1's secondary is replaced "
        'by node4 (OP_INSTANCE_REPLACE_DISKS replace_new_secondary). '
        '[gnt-node evacuate -s]'))
def _():
  return run_tool(base4(), ["node-evacuate", "--node", n(2),
                            "--evac-mode", "secondary-only"])


@sample("node-evacuate-all.json", readme=(
        'node-evacuate `all` for db1 (node2/node3) and app1: db1 gets the new'
        ' pair node4/node1 (replace, migrate, replace) and app1 moves to '
        'node4. [gnt-debug allocator: gnt-node evacuate refuses mode all]'))
def _():
  return run_tool(base4(), testalloc_argv(
    "node-evacuate", instances=["db1" + DOMAIN, "app1" + DOMAIN],
    evac_mode="all"))


@sample("change-group-target.json", readme=(
        'change-group of web1 to the named target group rack2 '
        '(`target_groups` holds its UUID); moved to node5/node4 with '
        'replace/migrate/replace jobs. [gnt-instance change-group --to]'))
def _():
  return run_tool(twogroups(), ["change-group", "--instance", "web1" + DOMAIN,
                                "--to", "rack2"])


@sample("change-group-any.json", readme=(
        'change-group with an empty `target_groups`: any other group may take'
        ' web1; preferred rack2 wins over last_resort rack3 and unallocable '
        'rack4, answer node4/node3. [gnt-debug allocator]'))
def _():
  return run_tool(fourgroups(), testalloc_argv(
    "change-group", instances=["web1" + DOMAIN]))


@sample("allocate-secondary.json", readme=(
        'allocate-secondary for the stopped plain instance files1 on node3 '
        '(conversion to drbd); result is the string `"node4.example.com"`. '
        '[gnt-instance modify -t drbd]'))
def _():
  return run_tool(base4(), ["allocate-secondary", "--instance",
                            "files1" + DOMAIN])


# --- features ----------------------------------------------------------------

def metric3():
  """Three nodes loaded differently: node1 has the most free memory but
  three small instances, node2 one big instance, node3 two medium ones."""
  return cluster(
    [(1, node()), (2, node()), (3, node())],
    [("small1", inst([1], template="plain", memory=1024)),
     ("small2", inst([1], template="plain", memory=1024)),
     ("small3", inst([1], template="plain", memory=1024)),
     ("big1", inst([2], template="plain", memory=16384, vcpus=4)),
     ("mid1", inst([3], template="plain", memory=6144, vcpus=2)),
     ("mid2", inst([3], template="plain", memory=6144, vcpus=2))])


@sample("allocate-metric.json", readme=(
        'the cluster metric choosing among nodes: node1 has the most free '
        'memory but three instances (score 5.182), node2 one big instance '
        '(2.200), node3 two medium ones (4.091); the load components count '
        'instances, so hail answers node2. [gnt-instance add]'))
def _():
  return run_tool(metric3(), alloc_argv("new1", "plain", (10240,), 2048, 1))


def fourgroups():
  """Groups: default (preferred, busy), rack2 (preferred, lightly used),
  rack3 (last_resort, empty), rack4 (unallocable, empty)."""
  return cluster(
    [(1, node()), (2, node()), (3, node("rack2")), (4, node("rack2")),
     (5, node("rack3")), (6, node("rack3")), (7, node("rack4")),
     (8, node("rack4"))],
    [("web1", inst([1, 2], memory=4096, vcpus=2)),
     ("db1", inst([2, 1], memory=8192, vcpus=4, disks=(20480, 4096))),
     ("app1", inst([3, 4], memory=2048))],
    groups=groups(("default", "preferred"), ("rack2", "preferred"),
                  ("rack3", "last_resort"), ("rack4", "unallocable")))


@sample("allocate-group-policies.json", readme=(
        'four groups: default and rack2 preferred, rack3 last_resort, rack4 '
        'unallocable; info lists every group in order with its score; rack2 '
        '(preferred, 3.006) beats default (preferred, 3.926), and rack3/rack4'
        ' lose despite better scores (2.702): `Selected group: rack2`. '
        '[gnt-instance add]'))
def _():
  return run_tool(fourgroups(), alloc_argv("new1", "drbd", (10240,), 2048, 2))


@sample("allocate-group-last-resort.json", readme=(
        "the preferred group's 16 GiB nodes cannot take the 16 GiB instance "
        '(FailMem: 2), so the last_resort group rack3 is chosen; unallocable '
        'rack4 with the same score is not. [gnt-instance add]'))
def _():
  spec = cluster(
    [(1, node(mem=16384)), (2, node(mem=16384)), (3, node("rack3")),
     (4, node("rack3")), (5, node("rack4")), (6, node("rack4"))],
    [("web1", inst([1, 2], memory=4096, vcpus=2))],
    groups=groups(("default", "preferred"), ("rack3", "last_resort"),
                  ("rack4", "unallocable")))
  return run_tool(spec, alloc_argv("new1", "drbd", (10240,), 16384, 2))


@sample("allocate-group-name.json", readme=(
        '`group_name` rack4: hail allocates inside that group even though it '
        'is unallocable, scores it group-locally and prints no `Selected '
        'group:`; answer node8/node7. [gnt-instance add -g]'))
def _():
  return run_tool(fourgroups(), alloc_argv("new1", "drbd", (10240,), 2048, 2,
                                           group="rack4"))


@sample("allocate-restrict-to-nodes.json", readme=(
        '`restrict-to-nodes` [node3, node2, node1] (opportunistic locking got'
        ' no lock on node4): the pair node3/node1 instead of node4/node1 '
        '(`successes 6`). [gnt-instance add --opportunistic-locking, list '
        "edited: the tool's lock mock grants every lock]"))
def _():
  req = run_tool(base4(), alloc_argv("new1", "drbd", (10240,), 2048, 2,
                                     extra=["--opportunistic-locking"]))
  return edit_restrict(req, [n(3), n(2), n(1)])


@sample("allocate-restrict-allocation-to.json",
        args=["--restrict-allocation-to=%s,%s" % (n(3), n(4))], readme=(
        'the same request with `--restrict-allocation-to=node3,node4`: the '
        "option replaces the request's list, so hail answers node4/node3 "
        '(`successes 2`). [as allocate-restrict-to-nodes]'))
def _():
  req = run_tool(base4(), alloc_argv("new1", "drbd", (10240,), 2048, 2,
                                     extra=["--opportunistic-locking"]))
  return edit_restrict(req, [n(3), n(2), n(1)])


def n1_cluster():
  """node1 runs a 10 GiB plain instance that only an empty node could
  re-create; node2 runs 4 GiB, node3 is empty."""
  return cluster(
    [(1, node(mem=16384)), (2, node(mem=16384)), (3, node(mem=16384))],
    [("big1", inst([1], template="plain", memory=10240, vcpus=2)),
     ("mid1", inst([2], template="plain", memory=4096))])


@sample("allocate-n1-fail.json", readme=(
        'global N+1 check refusing the best candidate: node3 scores best '
        "(0.236) but afterwards no node could re-create node1's 10 GiB plain "
        'instance, so info has `FailMem: 1, FailN1: 1` and hail answers node2'
        ' (3.687). [gnt-instance add]'))
def _():
  return run_tool(n1_cluster(), alloc_argv("new1", "plain", (10240,), 4096))


@sample("allocate-no-capacity-checks.json", args=["--no-capacity-checks"],
        readme=(
        'the same request with `--no-capacity-checks`: no N+1 check, hail '
        'answers node3 (`failures 1 (FailMem: 1)`). [gnt-instance add]'))
def _():
  return run_tool(n1_cluster(), alloc_argv("new1", "plain", (10240,), 4096))


def tags_cluster(new_tag_everywhere=False):
  """Exclusion tags: cluster tag htools:iextags:service; instances tagged
  service:web on node2 and node3 (and on node1 for the "everywhere"
  variant).  node1 is the most loaded node."""
  inst_list = [
    ("web1", inst([2], template="plain", memory=2048, tags=["service:web"])),
    ("web2", inst([3], template="plain", memory=2048, tags=["service:web"])),
    ("mail1", inst([1], template="plain", memory=4096, vcpus=2,
                   tags=["service:mail"])),
    ("mail2", inst([1], template="plain", memory=4096, vcpus=2,
                   tags=["service:mail"]))]
  if new_tag_everywhere:
    inst_list.append(("web3", inst([1], template="plain", memory=2048,
                                   tags=["service:web"])))
  return cluster([(1, node()), (2, node()), (3, node())], inst_list,
                 tags=["htools:iextags:service"])


@sample("allocate-exclusion-tags.json", readme=(
        'exclusion tags: cluster tag `htools:iextags:service`, the new '
        'instance is tagged service:web like instances on node2 and node3 '
        '(FailTags: 2), so hail answers the busier node1; without the cluster'
        ' tag it answers node3. [gnt-instance add --tags]'))
def _():
  return run_tool(tags_cluster(), alloc_argv("web9", "plain", (10240,), 2048,
                                             tags=["service:web"]))


@sample("allocate-exclusion-tags-everywhere.json", readme=(
        'every node already runs a service:web instance: `success: false`, '
        '`FailTags: 3` (an allocate that cannot be satisfied). [gnt-instance '
        'add --tags]'))
def _():
  return run_tool(tags_cluster(True), alloc_argv(
    "web9", "plain", (10240,), 2048, tags=["service:web"]))


@sample("allocate-ignore-soft-errors.json", args=["--ignore-soft-errors"],
        readme=(
        'the same request with `--ignore-soft-errors`: tags are a soft error,'
        ' so hail now places it on node3. [gnt-instance add --tags]'))
def _():
  return run_tool(tags_cluster(True), alloc_argv(
    "web9", "plain", (10240,), 2048, tags=["service:web"]))


@sample("allocate-network.json", readme=(
        'networks: the new NIC is on network NET_A (a UUID), to which group '
        'rack2 is not connected (it has NET_B); info says `group rack2 is not '
        'connected to a network required by instance new1.example.com` and '
        'hail answers node3/node2 in default (without the network it picks '
        'rack2). [gnt-instance add; group networks and the NIC\'s `network` '
        'edited in: the tool\'s config has no networks]'))
def _():
  req = run_tool(twogroups(), alloc_argv("new1", "drbd", (10240,), 2048, 2))
  return edit_network(req, {"default": [NET_A], "rack2": [NET_B]}, NET_A)


def policy_cluster(**ipolicy):
  return cluster(
    [(1, node(cpus=16)), (2, node(cpus=16)), (3, node(cpus=16))],
    [("web1", inst([1, 2], memory=1024)),
     ("db1", inst([2, 3], memory=8192, vcpus=4, disks=(40960,)))],
    groups=groups(("default", "preferred", {"ipolicy": dict(ipolicy)})))


TWO_SPECS = [minmax(ispec(128, 1, 1024), ispec(2048, 2, 20480, 2, 2, 2)),
             minmax(ispec(4096, 4, 10240), ispec(16384, 8, 102400, 4, 4, 4))]


@sample("allocate-ipolicy-second-spec.json", readme=(
        'an ipolicy with two min/max specs; the 8 GiB / 4 vCPU / 50 GiB '
        'instance fits only the second one and is placed (node3/node1). '
        '[gnt-instance add; group ipolicy in the spec]'))
def _():
  return run_tool(policy_cluster(minmax=TWO_SPECS),
                  alloc_argv("new1", "drbd", (51200,), 8192, 4))


@sample("allocate-ipolicy-no-spec.json", readme=(
        'the same policy, a 3 GiB / 2 vCPU instance fitting neither spec: '
        '`success: false`, `FailMem: 6` (the failure of the first spec is '
        'reported). [gnt-instance add]'))
def _():
  return run_tool(policy_cluster(minmax=TWO_SPECS),
                  alloc_argv("new1", "drbd", (10240,), 3072, 2))


@sample("allocate-disk-templates.json", readme=(
        "group rack2's ipolicy allows only plain, diskless and rbd: the drbd "
        'instance gets `FailDisk: 2` there and goes to default (node3/node2) '
        'instead of the emptier rack2. [gnt-instance add]'))
def _():
  spec = twogroups()
  spec["groups"]["rack2"]["ipolicy"] = {
    "disk-templates": ["plain", "diskless", "rbd"]}
  return run_tool(spec, alloc_argv("new1", "drbd", (10240,), 2048, 2))


@sample("allocate-vcpu-ratio.json", readme=(
        'vcpu-ratio 1.0 on 8-CPU nodes: node1 (6 vCPUs used + 1 reserved) '
        'would be best but gets FailCPU, so hail answers node3; with the '
        'default ratio it answers node1. [gnt-instance add]'))
def _():
  spec = cluster(
    [(1, node()), (2, node()), (3, node())],
    [("cpu1", inst([1], template="plain", memory=2048, vcpus=6)),
     ("mem1", inst([2], template="plain", memory=6144)),
     ("mem2", inst([2], template="plain", memory=6144)),
     ("mem3", inst([3], template="plain", memory=6144)),
     ("mem4", inst([3], template="plain", memory=6144))],
    groups=groups(("default", "preferred", {"ipolicy": {"vcpu-ratio": 1.0}})))
  return run_tool(spec, alloc_argv("new1", "plain", (10240,), 2048, 2))


# --- failures modelled on Ganeti's tracker (what --explain must name) ---------

@sample("allocate-spindle-ratio.json", readme=(
        'spindle-ratio 1.0 with one spindle per node, every node already '
        'holding a plain instance: each node would use 2 spindles where 1 is '
        'allowed, which hail reports only as `FailDisk: 3`. [gnt-instance '
        'add; group ipolicy in the spec]'))
def _():
  spec = cluster(
    [(1, node()), (2, node()), (3, node())],
    [("vol1", inst([1], template="plain", memory=2048)),
     ("vol2", inst([2], template="plain", memory=2048)),
     ("vol3", inst([3], template="plain", memory=2048))],
    groups=groups(("default", "preferred",
                   {"ipolicy": {"spindle-ratio": 1.0}})))
  return run_tool(spec, alloc_argv("new1", "plain", (10240,), 2048))


@sample("allocate-small-dom0.json", readme=(
        'Xen nodes declaring 1 GiB for dom0 whose reported free memory is 3 '
        'GiB lower (a dom0 larger than declared): the 4 GiB instance gets '
        '`FailMem: 3` on 8 GiB nodes that look half empty. [gnt-instance add;'
        ' node free memory lowered in the spec]'))
def _():
  spec = cluster(
    [(1, node(mem=8192, dom0=1024)), (2, node(mem=8192, dom0=1024)),
     (3, node(mem=8192, dom0=1024))],
    [("small1", inst([1], template="plain", memory=1024))],
    hv="xen-pvm")
  for k in (1, 2, 3):
    spec["nodes"][n(k)]["memory_free"] -= 3072
  return run_tool(spec, alloc_argv("new1", "plain", (10240,), 4096))


@sample("allocate-policy-memory.json", readme=(
        'an instance of 33484 MiB against the default policy maximum of 32768 '
        'MiB (716 MiB over): `FailMem: 12` for every pair, although the nodes '
        'have the memory. [gnt-instance add]'))
def _():
  spec = cluster([(k, node(mem=65536)) for k in (1, 2, 3, 4)])
  return run_tool(spec, alloc_argv("new1", "drbd", (10240,), 33484, 2))


# --- exclusive storage, spindles, dedicated allocation ------------------------

def es_node(group=None, spindles=12, **kw):
  return node(group, ndparams={"exclusive_storage": True},
              spindles_total=spindles, **kw)


@sample("allocate-spindles.json", readme=(
        'exclusive storage with spindles in group ssd (12 spindles per node) '
        'next to a non-exclusive group hdd: the 4-spindle disk does not fit '
        "node1 (3 free, `FailSpindles: 1`); ssd's node3 (2.372) beats hdd's "
        'node5 (3.672). Not dedicated, because hdd is not exclusive. '
        '[gnt-instance add, disk spindles set]'))
def _():
  spec = cluster(
    [(1, es_node("ssd")), (2, es_node("ssd")), (3, es_node("ssd")),
     (4, node("hdd")), (5, node("hdd"))],
    [("db1", inst([1], template="plain", disks=(204800, 204800),
                  spindles=(5, 4), memory=8192, vcpus=2)),
     ("db2", inst([2], template="plain", disks=(102400,), spindles=(2,),
                  memory=8192, vcpus=2)),
     ("db3", inst([3], template="plain", disks=(102400,), spindles=(2,),
                  memory=4096, vcpus=2)),
     ("web1", inst([4], template="plain", disks=(20480,), memory=4096)),
     ("web2", inst([5], template="plain", disks=(20480,), memory=4096)),
     ("web3", inst([5], template="plain", disks=(20480,), memory=4096)),
     ("web4", inst([4], template="plain", disks=(20480,), memory=4096))],
    groups=groups(("ssd", "preferred"), ("hdd", "preferred")))
  return run_tool(spec, alloc_argv("new1", "plain", (102400,), 4096, 2),
                  hooks={"disk_spindles": [4]})


QUARTER, HALF, FULL = 256000, 512000, 1024000
DEDICATED_POLICY = {
  # (under exclusive storage "spindle-use" bounds the disks' spindles)
  "minmax": [minmax(ispec(1024, 1, QUARTER, su=1),
                    ispec(8192, 2, 262144, 4, 4, su=2)),
             minmax(ispec(2048, 2, HALF, su=3),
                    ispec(16384, 4, 524288, 4, 4, su=4)),
             minmax(ispec(4096, 4, FULL, su=5),
                    ispec(32768, 8, 1048576, 4, 4, su=8))]}


def dedicated_cluster(policy="preferred"):
  """Exclusive storage everywhere; instances come in quarter, half and full
  node sizes.  node1 is empty, node2 quarter full, node3 half full, node4
  three quarters full."""
  return cluster(
    [(1, es_node(spindles=8)), (2, es_node(spindles=8)),
     (3, es_node(spindles=8)), (4, es_node(spindles=8))],
    [("q1", inst([2], template="plain", disks=(QUARTER,), spindles=(2,),
                 memory=4096, vcpus=2)),
     ("h1", inst([3], template="plain", disks=(HALF,), spindles=(4,),
                 memory=8192, vcpus=4)),
     ("h2", inst([4], template="plain", disks=(HALF,), spindles=(4,),
                 memory=8192, vcpus=4)),
     ("q2", inst([4], template="plain", disks=(QUARTER,), spindles=(2,),
                 memory=4096, vcpus=2))],
    groups=groups(("default", policy, {"ipolicy": DEDICATED_POLICY})))


@sample("allocate-dedicated.json", readme=(
        'dedicated allocation: every node has exclusive storage and the '
        'policy has quarter/half/full specs; lost-allocations metric: node4 '
        '(three quarters full) loses `[0,0,1]` with 24576 MiB left, node2 '
        '`[0,0,1]` with 536576, node3 `[0,1,1]`, node1 `[1,1,1]`; info '
        '`score: ([0,0,1],24576)`, answer node4. [gnt-instance add, disk '
        'spindles set]'))
def _():
  return run_tool(dedicated_cluster(), alloc_argv(
    "new1", "plain", (QUARTER,), 4096, 2), hooks={"disk_spindles": [2]})


@sample("multi-allocate-dedicated.json", readme=(
        'two half-node instances on the dedicated cluster: the first goes to '
        'the half-full node3, the second to the quarter-full node2. '
        '[gnt-instance batch-create, disk spindles set]'))
def _():
  return run_tool(dedicated_cluster(), [
    "multi-allocate", "--name", "new1" + DOMAIN, "--name", "new2" + DOMAIN,
    "-t", "plain", "--disk", str(HALF), "--memory", "8192", "--vcpus", "4"],
    hooks={"disk_spindles": [4]})


@sample("allocate-dedicated-unallocable.json", readme=(
        'vacuous dedicated case: no exclusive storage, but both groups are '
        'unallocable, so hail uses the lost-allocations metric and answers '
        '`success: false` while the info still shows per-group solutions '
        '(`score: ([2],2055680)` ...). [gnt-instance add]'))
def _():
  spec = cluster(
    [(1, node()), (2, node()), (3, node("rack2")), (4, node("rack2"))],
    [("web1", inst([1, 2], memory=2048, vcpus=2))],
    groups=groups(("default", "unallocable"), ("rack2", "unallocable")))
  return run_tool(spec, alloc_argv("new1", "drbd", (10240,), 2048, 2))


# --- location, desired location and migration tags ---------------------------

def power4(tags):
  spec = base4(tags=tags)
  for k, t in ((1, "power:a"), (2, "power:b"), (3, "power:b"),
               (4, "power:a")):
    spec["nodes"][n(k)]["tags"] = [t]
  return spec


@sample("allocate-location-tags.json", readme=(
        'failure/location tags: `htools:nlocation:power`, node1/node4 '
        'power:a, node2/node3 power:b; without the tags hail answers '
        'node4/node1 (allocate-drbd), with them it avoids a same-power pair '
        'and answers node4/node3. [gnt-instance add]'))
def _():
  return run_tool(power4(["htools:nlocation:power"]),
                  alloc_argv("new1", "drbd", (10240,), 2048, 2))


@sample("allocate-desired-location.json", readme=(
        'desired location: cluster tags `htools:nlocation:power` and '
        '`htools:desiredlocation:power`, the new instance is tagged power:b; '
        'hail answers node3 (power:b) where it would otherwise take node1 '
        '(power:a). [gnt-instance add --tags]'))
def _():
  spec = cluster(
    [(1, node(tags=["power:a"])), (2, node(tags=["power:a"])),
     (3, node(tags=["power:b"])), (4, node(tags=["power:b"]))],
    [("web1", inst([1], template="plain", memory=2048)),
     ("web2", inst([2], template="plain", memory=4096)),
     ("web3", inst([3], template="plain", memory=4096)),
     ("web4", inst([4], template="plain", memory=6144))],
    tags=["htools:nlocation:power", "htools:desiredlocation:power"])
  return run_tool(spec, alloc_argv("new1", "plain", (10240,), 2048, 1,
                                   tags=["power:b"]))


def migration_cluster(tags):
  """node1/node2 run the old hypervisor (hv:old), node3/node4 the new one
  (hv:new); node4 is busy."""
  return cluster(
    [(1, node(tags=["hv:old"])), (2, node(tags=["hv:old"])),
     (3, node(tags=["hv:new"])), (4, node(tags=["hv:new"]))],
    [("ext1", inst([3], template="ext", disks=(10240,), memory=2048)),
     ("db1", inst([3, 1], memory=4096, vcpus=2)),
     ("db2", inst([1, 4], memory=4096, vcpus=2)),
     ("ext2", inst([1], template="ext", disks=(10240,), memory=2048)),
     ("big1", inst([4], template="ext", disks=(10240,), memory=12288,
                   vcpus=4)),
     ("big2", inst([4], template="ext", disks=(10240,), memory=8192,
                   vcpus=4))],
    tags=tags)


MIGRATION_TAGS = ["htools:migration:hv", "htools:allowmigration:hv:old::hv:new"]


@sample("node-evacuate-migration-tags.json", readme=(
        'migration tags: `htools:migration:hv` and '
        '`htools:allowmigration:hv:old::hv:new`, node1/node2 hv:old, '
        'node3/node4 hv:new; evacuating node3 (primary-only): db1 cannot fail'
        ' over to its hv:old secondary (failed: `FailMig`) and ext1 may only '
        'go to hv:new node4 (otherwise node2 is chosen). [gnt-node evacuate '
        '-p]'))
def _():
  return run_tool(migration_cluster(MIGRATION_TAGS), [
    "node-evacuate", "--node", n(3), "--evac-mode", "primary-only"])


@sample("node-evacuate-allowmigration.json", readme=(
        'same cluster, evacuating hv:old node1: db2 fails over to its hv:new '
        'secondary node4, which the allowmigration tag permits (without it: '
        'FailMig); ext2 goes to node2. [gnt-node evacuate -p]'))
def _():
  return run_tool(migration_cluster(MIGRATION_TAGS), [
    "node-evacuate", "--node", n(1), "--evac-mode", "primary-only"])


# --- node states, forthcoming instances, memory accounting -------------------

@sample("allocate-offline-nodes.json", readme=(
        'offline node2 (no run-time data, still primary of web1), drained '
        'node3 and non-vm_capable node4 are never candidates: only '
        'node1/node5/node6 pairs (`successes 6`), answer node5/node6; the '
        'score includes the offline-instance penalties. [gnt-instance add]'))
def _():
  spec = cluster(
    [(1, node()), (2, node(offline=True, master_candidate=False)),
     (3, node(drained=True)), (4, node(vm_capable=False)), (5, node()),
     (6, node())],
    [("web1", inst([2, 1], memory=2048)),
     ("db1", inst([3, 5], memory=4096, vcpus=2)),
     ("app1", inst([6], template="plain", memory=2048))])
  return run_tool(spec, alloc_argv("new1", "drbd", (10240,), 2048, 2))


@sample("allocate-forthcoming.json", readme=(
        'forthcoming instances: node1 reports 28 GiB free but holds a '
        'forthcoming 24 GiB instance, so the forthcoming accounting gives '
        'node1 FailMem for the 8 GiB instance; node2/node3 tie and the later '
        'one, node3, wins. [gnt-instance add; `forthcoming` edited in: Ganeti'
        ' 3.0 keeps the flag in its config but does not export it]'))
def _():
  spec = cluster(
    [(1, node()), (2, node()), (3, node())],
    [("future1", inst([1], template="plain", memory=24576, vcpus=4,
                      forthcoming=True)),
     ("web1", inst([2], template="plain", memory=4096)),
     ("web2", inst([3], template="plain", memory=4096))])
  req = run_tool(spec, alloc_argv("new1", "plain", (10240,), 8192, 2),
                 hooks={"forthcoming": ["future1" + DOMAIN]})
  return edit_forthcoming(req, ["future1" + DOMAIN])


def kvm_cluster():
  """KVM nodes that report only 1 GiB reserved for the host."""
  return cluster(
    [(1, node(dom0=1024)), (2, node(dom0=1024)), (3, node(dom0=1024))],
    [("web1", inst([3], template="plain", memory=2048))], hv="kvm")


@sample("allocate-kvm-reserved-memory.json", readme=(
        'KVM (`enabled_hypervisors` starts with kvm): nodes report 1 GiB '
        'reserved, hail replaces it with 4096 MiB, so the 29 GiB instance '
        'fits nowhere: `success: false`, `FailMem: 3`. [gnt-instance add]'))
def _():
  return run_tool(kvm_cluster(), alloc_argv("new1", "plain", (10240,), 29696))


@sample("allocate-kvm-static-memory-0.json",
        args=["--static-kvm-node-memory=0"], readme=(
        'the same request with `--static-kvm-node-memory=0`: the reported 1 '
        'GiB is kept, node1 and node2 fit and tie, hail answers node2. '
        '[gnt-instance add]'))
def _():
  return run_tool(kvm_cluster(), alloc_argv("new1", "plain", (10240,), 29696))


@sample("allocate-inconsistent-data.json", readme=(
        'Xen cluster whose node1 reports 6 GiB less free memory and node3 200'
        ' GiB less free disk than their instances explain: hail prints '
        '`Warning: cluster has inconsistent data:` on stderr (node3 first: '
        "the lines come in reverse node order; node4's 512 MiB gap is within "
        'tolerance) and still answers node4/node1. [gnt-instance add; free '
        'values in the spec]'))
def _():
  spec = base4(hv="xen-pvm")
  spec["nodes"][n(1)]["memory_free"] -= 6144     # 6 GiB unaccounted for
  spec["nodes"][n(3)]["disk_free"] -= 204800     # 200 GiB unaccounted for
  spec["nodes"][n(4)]["memory_free"] -= 512      # within tolerance
  return run_tool(spec, alloc_argv("new1", "drbd", (10240,), 2048, 2))


# --- requests that cannot be satisfied --------------------------------------

@sample("allocate-fail.json", readme=(
        'allocate that cannot be satisfied: a 30 GiB drbd instance, `success:'
        ' false`, `FailMem: 12`. [gnt-instance add]'))
def _():
  return run_tool(base4(), alloc_argv("new1", "drbd", (10240,), 30720, 4))


@sample("multi-allocate-group-fail.json", readme=(
        'multi-allocate with an outer `group_name` rack2: new1 gets '
        'node5/node4, new2 no longer fits (FailMem: 2) and is listed as '
        'failed with its reason: `1 instances failed to allocate and 1 were '
        'allocated successfully`. [gnt-instance batch-create; outer '
        'group_name edited in: hail reads only that one]'))
def _():
  req = run_tool(twogroups(), [
    "multi-allocate", "--name", "new1" + DOMAIN, "--name", "new2" + DOMAIN,
    "-t", "drbd", "--disk", "10240", "--memory", "20480", "--vcpus", "2"])
  return edit_multi_group(req, "rack2")


@sample("multi-allocate-fail.json", readme=(
        'multi-allocate without a group where the second instance fits no '
        'group: the whole request fails, `success: false`. [gnt-instance '
        'batch-create]'))
def _():
  return run_tool(twogroups(), [
    "multi-allocate", "--name", "new1" + DOMAIN, "--name", "new2" + DOMAIN,
    "-t", "drbd", "--disk", "10240", "--memory", "27648", "--vcpus", "2"])


@sample("relocate-fail.json", readme=(
        'relocate that cannot be satisfied: node3 and node4 have only 8 GiB '
        "of disk left: `success: false`, `Can't find any good node:  Node "
        'node3.example.com failed: FailDisk; ...`. [gnt-instance '
        'replace-disks -I]'))
def _():
  spec = base4()
  for k in (3, 4):     # only 8 GiB of free disk left on node3 and node4
    nd = spec["nodes"][n(k)]
    nd["disk_total"] -= nd["disk_free"] - 8192
    nd["disk_free"] = 8192
  return run_tool(spec, ["relocate", "--instance", "web1" + DOMAIN])


@sample("node-evacuate-fail.json", readme=(
        "node-evacuate where nothing can move: db1's secondary lacks memory "
        '(`FailMem`) and plain files1 cannot be relocated; hail never answers'
        ' success false here, it lists both in the failed part (`2 instances '
        'failed to move and 0 were moved successfully`). [gnt-node evacuate '
        '-p]'))
def _():
  spec = cluster(
    [(1, node()), (2, node()), (3, node())],
    [("db1", inst([1, 2], memory=8192, vcpus=2)),
     ("files1", inst([1], template="plain", memory=2048)),
     ("big1", inst([2], template="plain", memory=20480, vcpus=4))])
  return run_tool(spec, ["node-evacuate", "--node", n(1),
                         "--evac-mode", "primary-only"])


@sample("change-group-no-target.json", readme=(
        'change-group on a one-group cluster with an empty `target_groups`: '
        'web1 fails with `no groups for evacuation: allowed groups was Just '
        '[], all groups: [Group {...}]` (a Haskell record printed verbatim). '
        '[gnt-debug allocator]'))
def _():
  return run_tool(base4(), testalloc_argv("change-group",
                                          instances=["web1" + DOMAIN]))


# --- more corners --------------------------------------------------------------

@sample("relocate-ext.json", readme=(
        'relocate of the ext instance app1 as gnt-debug sends it '
        '(`relocate_from` empty, the secondaries): `success: false`, '
        "`Unsupported request: excluded nodes not equal to instance's "
        'primary(1 versus [])`. [gnt-debug allocator]'))
def _():
  return run_tool(base4(), testalloc_argv("relocate",
                                          instance="app1" + DOMAIN))


@sample("node-evacuate-forthcoming.json", readme=(
        'node-evacuate primary-only of forthcoming instances: they move with '
        'OP_INSTANCE_FAILOVER opcodes instead of OP_INSTANCE_MIGRATE (drbd '
        'fc1 to node2, ext fc2 to node4 with `target_node`). [gnt-node '
        'evacuate -p; `forthcoming` edited in]'))
def _():
  spec = cluster(
    [(1, node()), (2, node()), (3, node()), (4, node())],
    [("fc1", inst([1, 2], memory=4096, vcpus=2, forthcoming=True)),
     ("fc2", inst([1], template="ext", memory=2048, forthcoming=True)),
     ("web1", inst([3, 4], memory=2048)),
     ("web2", inst([4], template="ext", memory=2048))])
  names = ["fc1" + DOMAIN, "fc2" + DOMAIN]
  req = run_tool(spec, ["node-evacuate", "--node", n(1),
                        "--evac-mode", "primary-only"],
                 hooks={"forthcoming": names})
  return edit_forthcoming(req, names)


@sample("node-evacuate-offline-primary.json", readme=(
        'node-evacuate `all` of db1 whose primary node1 is offline: the job '
        'starts with an extra OP_INSTANCE_MIGRATE (failover to the secondary) '
        'before replace/migrate/replace; new nodes node4/node3. '
        '[gnt-debug allocator]'))
def _():
  spec = cluster(
    [(1, node(offline=True, master_candidate=False)), (2, node()),
     (3, node()), (4, node())],
    [("db1", inst([1, 2], memory=4096, vcpus=2)),
     ("web1", inst([3, 4], memory=2048))])
  return run_tool(spec, testalloc_argv(
    "node-evacuate", instances=["db1" + DOMAIN], evac_mode="all"))


@sample("multi-allocate-dedicated-group.json", readme=(
        'multi-allocate on the dedicated cluster with an outer `group_name`: '
        "hail's dedicated path reuses the original node list, so both quarter"
        ' instances land on node4 although only one fits there. [gnt-instance'
        ' batch-create, disk spindles set; outer group_name edited in]'))
def _():
  req = run_tool(dedicated_cluster(), [
    "multi-allocate", "--name", "new1" + DOMAIN, "--name", "new2" + DOMAIN,
    "-t", "plain", "--disk", str(QUARTER), "--memory", "4096", "--vcpus", "2"],
    hooks={"disk_spindles": [2]})
  return edit_multi_group(req, "default")


@sample("allocate-secondary-drained.json", readme=(
        'allocate-secondary with a drained node2 and an offline node3 in the '
        'group: both are tried as secondaries (offline node3 gives FailDisk),'
        ' hail answers node4 (`successes 2, failures 1 (FailDisk: 1)`). '
        '[gnt-instance modify -t drbd]'))
def _():
  spec = cluster(
    [(1, node()), (2, node(drained=True)),
     (3, node(offline=True, master_candidate=False)), (4, node())],
    [("files1", inst([1], template="plain", memory=2048, up=False)),
     ("web1", inst([4, 1], memory=4096, vcpus=2))])
  return run_tool(spec, ["allocate-secondary", "--instance",
                         "files1" + DOMAIN])


# --- input hail refuses (exit 1) ---------------------------------------------

@sample("invalid-empty.json", readme=(
        'an empty file: exit 1, `Invalid JSON: a JSON text a serialized '
        'object or array at the top level.` [written directly]'))
def _():
  return ""


@sample("invalid-array.json", readme=(
        '`[]`: exit 1, `Unable to read JSObject`. [written directly]'))
def _():
  return "[]\n"


@sample("invalid-empty-object.json", readme=(
        "`{}`: exit 1, `key 'request' not found, object contains only []`. "
        '[written directly]'))
def _():
  return "{}\n"


@sample("invalid-request-zero.json", readme=(
        '`{"request": 0}`: exit 1, `key \'request\': Unable to read JSObject`. '
        '[written directly]'))
def _():
  return '{"request": 0}\n'


@sample("invalid-relocate-unknown-instance.json", readme=(
        'relocate naming an instance that does not exist: exit 1, `Unknown '
        "instance 'ghost.example.com'`. [gnt-instance replace-disks -I, name "
        'edited]'))
def _():
  req = run_tool(base4(), ["relocate", "--instance", "web1" + DOMAIN])
  req["request"]["name"] = "ghost" + DOMAIN
  return req


@sample("invalid-relocate-name-type.json", readme=(
        "relocate whose `name` is the number 42: exit 1, `key 'name': Unable "
        'to read String`. [gnt-instance replace-disks -I, name edited]'))
def _():
  req = run_tool(base4(), ["relocate", "--instance", "web1" + DOMAIN])
  req["request"]["name"] = 42
  return req


@sample("invalid-relocate-name-list.json", readme=(
        "relocate whose `name` is a list of strings: exit 1, `key 'name': "
        'Unable to read Char`. [gnt-instance replace-disks -I, name edited]'))
def _():
  req = run_tool(base4(), ["relocate", "--instance", "web1" + DOMAIN])
  req["request"]["name"] = ["web1" + DOMAIN]
  return req


@sample("invalid-node-type.json", readme=(
        'node2\'s `total_memory` is `"lots"`: exit 1, `invalid data for node '
        "'node2.example.com': key 'total_memory': Unable to read Double`. "
        '[gnt-instance add, value edited]'))
def _():
  req = run_tool(base4(), alloc_argv("new1", "drbd", (10240,), 2048, 2))
  req["nodes"][n(2)]["total_memory"] = "lots"
  return req


@sample("invalid-request-type.json", readme=(
        "request type `multi-evacuate` (Ganeti 2.x's, unknown to hail): exit "
        "1, `Invalid request type 'multi-evacuate'`. [gnt-debug allocator, "
        'type edited]'))
def _():
  req = run_tool(base4(), testalloc_argv(
    "node-evacuate", instances=["db1" + DOMAIN], evac_mode="all"))
  req["request"]["type"] = "multi-evacuate"
  return req


@sample("invalid-ipolicy-extra-key.json", readme=(
        'a group ipolicy with an unknown key `memory-ratio`: exit 1, '
        '`Superfluous dictionary keys: ["memory-ratio"], but only [...] '
        'allowed.` [gnt-instance add, key edited in]'))
def _():
  req = run_tool(base4(), alloc_argv("new1", "drbd", (10240,), 2048, 2))
  for g in req["nodegroups"].values():
    g["ipolicy"]["memory-ratio"] = 1.0
  return req


README_INTRO = """\
# protocol-samples

hailstone's own iallocator requests: small clusters (2-8 nodes, a handful of
instances) in the protocol version 2 format that Ganeti 3.0 sends to hail,
together covering every request type and every feature hail implements, plus
inputs hail refuses.  `tests/samples.rs` snapshots hailstone's answer to each
of them; `build.py --check` compares hailstone's exit code, stdout and stderr
with the real hail 3.0.2's.

Rebuild every file here (requests, `.args` files and this README) with

    python3 protocol-samples/build.py            # add --check to then run
                                                 # hail and hailstone on each

The output is deterministic, byte for byte.  Most requests are produced by
Ganeti 3.0's own code: `build.py` describes each cluster in the spec format of
`/work/shared/tools/examples/small-cluster.json` and runs
`/work/shared/tools/ganeti_request.py`, which executes the logical unit of the
command named in brackets below against a mock configuration and captures the
exact request text (`gnt-debug allocator` is the OpTestAllocator path, used
where the normal command cannot send that request).  Ganeti's random MACs and
UUIDs are pinned, and the request is re-printed with two-space indentation in
Ganeti's key order (node and instance order matter to hail).  This needs
Ganeti's Python code and test mocks, which
`bash /work/shared/tools/install-ganeti-client.sh` installs.  Where the tool
cannot express a feature, the bracket says what was edited into the captured
request afterwards (by the `edit_*` functions in build.py); `written directly`
marks the few tiny invalid inputs.  Node free memory and disk in the specs are
consistent with the instances (free memory = total - reserved - running
primaries, free disk = total - plain/drbd disk_space_total) unless a sample is
about inconsistent data.  The clusters run KVM and their nodes report 4096 MiB
reserved, so hail's static KVM node memory (4096 by default) changes nothing
except where a sample says otherwise.

A sample `X.json` may have a sidecar `X.args` holding hail command-line
options, one per line; the tools pass them after the input path
(`hail X.json $(cat X.args)`).  Valid samples make hail exit 0; the
`invalid-*` ones make it exit 1.  Each line says what the request exercises
and what hail answers.

"""


def write_readme():
  lines = [README_INTRO]
  for name, _, args, text in SAMPLES:
    lines.append("- `%s` \u2014 %s\n" % (name, text))
  with open(os.path.join(HERE, "README.md"), "w", encoding="utf-8") as fh:
    fh.write("".join(lines))


# ---------------------------------------------------------------------------

def write_all(only=None):
  for name, fn, args, _ in SAMPLES:
    if only and name not in only:
      continue
    data = fn()
    text = data if isinstance(data, str) else render(data) + "\n"
    if len(text.encode("utf-8")) >= 65536:
      raise SystemExit("%s is too big (%d bytes)" % (name, len(text)))
    path = os.path.join(HERE, name)
    with open(path, "w", encoding="utf-8") as fh:
      fh.write(text)
    apath = path[:-len(".json")] + ".args"
    if args:
      with open(apath, "w", encoding="utf-8") as fh:
        fh.write("".join(a + "\n" for a in args))
    elif os.path.exists(apath):
      os.remove(apath)


def _run(binary, path, args):
  env = dict(os.environ, LC_ALL="C.UTF-8")
  p = subprocess.run([binary, path] + args, env=env, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE)
  return p.returncode, p.stdout, p.stderr


def check():
  """Run hail and hailstone on every sample; report what differs."""
  bad = 0
  for name, _, args, _ in SAMPLES:
    path = os.path.join(HERE, name)
    h = _run(HAIL, path, args)
    s = _run(HAILSTONE, path, args)
    want_rc = 1 if name.startswith("invalid-") else 0
    notes = []
    if h[0] != want_rc:
      notes.append("hail exit %d (expected %d)" % (h[0], want_rc))
    if h[0] != s[0]:
      notes.append("exit: hail %d, hailstone %d" % (h[0], s[0]))
    if h[1] != s[1]:
      notes.append("stdout differs:\n  hail:      %s\n  hailstone: %s" %
                   (h[1].decode("utf-8", "replace").rstrip("\n"),
                    s[1].decode("utf-8", "replace").rstrip("\n")))
    if h[2] != s[2]:
      notes.append("stderr differs:\n  hail:      %r\n  hailstone: %r" %
                   (h[2].decode("utf-8", "replace"),
                    s[2].decode("utf-8", "replace")))
    serious = [x for x in notes if not x.startswith("stderr")]
    print("%-45s %s" % (name, "DIFFERENT" if serious else
                        "stderr differs" if notes else "same"))
    for x in notes:
      print("  " + x)
    bad += bool(serious)
  return bad


def main():
  argv = sys.argv[1:]
  only = [a for a in argv if not a.startswith("-")]
  write_all(only)
  if not only:
    write_readme()
  if "--check" in argv:
    sys.exit(1 if check() else 0)


if __name__ == "__main__":
  main()
