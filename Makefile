# hailstone — build, test and compare with hail.
#
# A fresh machine needs only `make run` and `make test`.

PREFIX  ?= /usr/local
DESTDIR ?=
CARGO   ?= cargo
HAIL    ?= /usr/lib/ganeti/iallocators/hail
SAMPLE  ?= protocol-samples/allocate-drbd.json
# Seconds before a timed run is stopped and shown as '> cap' (make bench).
# hail needs minutes for several modes at 1,000 nodes; 180 s is enough to
# show a 100x ratio against hailstone's times there.
HAIL_CAP ?= 180
BENCH_ARGS ?=
# The Ganeti release the compat targets compare with: 3.0 (Debian's
# ganeti-htools-3.0) or 3.1 (Ganeti 3.1.0's htools, built by make oracle-3.1).
GANETI ?= 3.0

RELEASE_BIN := target/release/hailstone

.PHONY: help build run test compat compat-full oracle-3.1 bench install deb e2e lint fmt clean fuzz

help: ## List the targets.
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -e 's/:.*## /\t/' | expand -t 16

build: ## Build the release binaries (target/release/hailstone and the development tools).
	$(CARGO) build --release --locked --workspace

run: build ## Answer a bundled sample request (SAMPLE=...).
	$(RELEASE_BIN) $(SAMPLE)

test: ## Run every test (unit, snapshots, hostile inputs, properties, safety).
	$(CARGO) test --locked --workspace

COMPAT := target/release/hailstone-compat --install-hail --hail $(HAIL) --hailstone $(RELEASE_BIN)
ORACLE :=
ifeq ($(GANETI),3.1)
COMPAT += --ganeti-version 3.1
ORACLE := oracle-3.1
else ifneq ($(GANETI),3.0)
$(error GANETI must be 3.0 or 3.1)
endif

compat: build $(ORACLE) ## Compare with the real hail on the samples and a small generated corpus: answers, then -S/-t/--simulate/-p; hailstone-balance with hbal; hailstone-squeeze with hsqueeze; hailstone-groups judged by hcheck; hailstone-space with hspace; hailstone-check with hcheck; hailstone-info with hinfo; hailstone-roll with hroller (installs them if missing).
	$(COMPAT) --profile ci
	$(COMPAT) --profile ci --suite datafiles
	$(COMPAT) --profile ci --suite balance
	$(COMPAT) --profile ci --suite squeeze
	$(COMPAT) --profile ci --suite groups
	$(COMPAT) --profile ci --suite space
	$(COMPAT) --profile ci --suite check
	$(COMPAT) --profile ci --suite info
	$(COMPAT) --profile ci --suite roll
	$(COMPAT) --profile ci --suite scan

compat-full: build $(ORACLE) ## The large compatibility corpus (2-200 nodes, hundreds per request type; 220 clusters of 5-60 nodes for hbal; 300 of 4-24 for hsqueeze; 1,000 multi-group clusters judged by hcheck; 200 clusters of 2-12 nodes for hspace, six runs each; 250 clusters of 3-30 nodes for hcheck, eight runs each; 250 of 3-40 for hinfo, six runs each; 250 of 3-40 for hroller, eighteen runs each; 250 of 3-40 served as RAPI directories for hscan, four runs each), every suite.
	$(COMPAT) --profile full
	$(COMPAT) --profile full --suite datafiles
	$(COMPAT) --profile full --suite balance
	$(COMPAT) --profile full --suite squeeze
	$(COMPAT) --profile full --suite groups
	$(COMPAT) --profile full --suite space
	$(COMPAT) --profile full --suite check
	$(COMPAT) --profile full --suite info
	$(COMPAT) --profile full --suite roll
	$(COMPAT) --profile full --suite scan

oracle-3.1: ## Build Ganeti 3.1.0's htools (Debian's 3.1.0~rc2 source with 3.1.0's two changes of behaviour) into /opt/ganeti-3.1.0/bin, the originals of make compat GANETI=3.1 (about 6 minutes and 1 GB of build dependencies the first time; devtools/oracle/ganeti-3.1.sh).
	bash devtools/oracle/ganeti-3.1.sh

bench: build ## Time hailstone against hail on clusters of 20 to 2,000 nodes, hailstone alone on 5,000 and 10,000, hailstone-balance against hbal on 20 to 1,000, hailstone-squeeze against hsqueeze on 20 to 200, and hailstone-space (its default count and --allocator-model) against hspace on 5 to 200 (about 35 minutes, and about 19 more for the space rows, whose cap is at least 300 s; HAIL_CAP, BENCH_ARGS, e.g. BENCH_ARGS='--modes space').
	target/release/hailstone-bench --install-hail --hail $(HAIL) --hailstone $(RELEASE_BIN) --hail-cap $(HAIL_CAP) $(BENCH_ARGS)

fuzz: ## Fuzz every target for FUZZ_SECONDS each (default 60; FUZZ_TARGETS=... to choose; see fuzz/README.md).
	FUZZ_SECONDS="$(FUZZ_SECONDS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" CARGO="$(CARGO)" fuzz/run.sh

# The programs installed in $(PREFIX)/bin.
PLANNERS := hailstone-balance hailstone-squeeze hailstone-groups hailstone-space hailstone-check hailstone-info hailstone-scan hailstone-roll hailstone-repair hailstone-htools

install: ## Install the allocator as $(PREFIX)/lib/ganeti/iallocators/hailstone and the planners and checkers ($(PLANNERS)) in $(PREFIX)/bin (built without the development tools).
	$(CARGO) build --release --locked -p hailstone
	install -d $(DESTDIR)$(PREFIX)/lib/ganeti/iallocators $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/lib/ganeti/iallocators/hailstone
	for p in $(PLANNERS); do install -m 0755 target/release/$$p $(DESTDIR)$(PREFIX)/bin/$$p; done

DEB_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_ROOT    := target/deb/hailstone_$(DEB_VERSION)_$(DEB_ARCH)
MAN1        := $(DEB_ROOT)/usr/share/man/man1
COMPLETIONS := $(DEB_ROOT)/usr/share/bash-completion/completions

# The man pages' own sections (the options come from --help).
MAN_NAME_hailstone := Ganeti iallocator with the decisions of hail 3.0.2, faster, with explanations
MAN_DESC_hailstone := Ganeti runs it as hailstone INPUT.json [--key=value...] and reads one JSON answer line on stdout. Make it the default with gnt-cluster modify -I hailstone, or use it per command with -I hailstone. The options of the cluster default iallocator parameters arrive as --key=value; flags take =yes or =no. --explain[=PATH] says why each group, node and pair was refused or chosen.
MAN_NAME_hailstone-balance := balance a Ganeti node group as hbal 3.0.2 does
MAN_DESC_hailstone-balance := Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m) or an iallocator request (-I), prints the moves that lower the cluster score, and with -C the gnt-instance commands that carry them out.
MAN_NAME_hailstone-groups := check, repair, compress and balance a Ganeti cluster across node groups
MAN_DESC_hailstone-groups := Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m) or an iallocator request (-I); check reports the health and storage partitions of each node group, repair moves the instances of unhealthy groups into healthy groups sharing their storage, compress finds the groups that could be emptied, balance balances the worst group; -C prints the commands and -S saves the cluster after the plan.
MAN_NAME_hailstone-squeeze := power Ganeti nodes off and on as hsqueeze 3.0.2 does
MAN_DESC_hailstone-squeeze := Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or an iallocator request (-I) and prints the nodes to power off when the cluster is quiet, or the standby nodes to power on when it runs short, and with -C the commands.
MAN_NAME_hailstone-space := count how many instances fit on a Ganeti cluster as hspace 3.0.2 does, or as the allocator would place them
MAN_DESC_hailstone-space := Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m) or an iallocator request (-I), or simulates empty node groups (--simulate), then fills it with new instances: first tiered, starting from the largest size the instance policy allows and shrinking the resource that runs out, then of the standard size (--tiered-alloc and --standard-alloc give other sizes, --disk-template another template), and prints how many fit and what is left, for people or with --machine-readable as HTS_ shell variables; -S saves the cluster after each phase. With --allocator-model it counts what the allocator itself (hailstone, as hail) would accept, one instance at a time: its choice of group, the global N+1 check for every disk template and the lost-allocations metric on exclusive storage, instead of the count of hspace.
MAN_NAME_hailstone-check := check the node groups of a Ganeti cluster for N+1 redundancy as hcheck 3.0.2 does
MAN_DESC_hailstone-check := Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m) or an iallocator request (-I) and prints, for each node group and the whole cluster, the online nodes failing N+1, the nodes with conflicting primary instances, the instances on offline nodes and the nodes that could not be evacuated (the global N+1 check), before and after a simulated rebalancing, for people or with --machine-readable as HCHECK_ shell variables. Exits with status 1 when the cluster needs rebalancing (unless --no-simulation). --true-counts corrects the two counting faults of hcheck and names, for each node that cannot be evacuated, the instance that cannot leave it.
MAN_NAME_hailstone-info := summarise a Ganeti cluster as hinfo 3.0.2 does
MAN_DESC_hailstone-info := Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m) or an iallocator request (-I) and prints its size, the instances split between node groups, the nodes, instances, N+1 failures and score of each group (-v -v), the instance map (--print-instances) and node table (-p) on stderr, and the score of the cluster with its components.
MAN_NAME_hailstone-scan := save live Ganeti clusters as cluster data files as hscan 3.0.2 does
MAN_DESC_hailstone-scan := Reads each cluster named on the command line over RAPI (a host name, an https address, or file://DIRECTORY with the four RAPI replies), or without arguments the local cluster over Luxi (-L, as LOCAL), prints one summary line per cluster (nodes, instances, nodes and instances failing N+1, memory, disk, score; -p adds the node table) and writes each as a Ganeti cluster data file NAME.data in the directory of -d (default the current one), for hailstone-balance -t and the other programs. Exits with status 2 when a cluster could not be read.
MAN_NAME_hailstone-roll := plan rolling reboots of Ganeti nodes as hroller 3.0.2 does
MAN_DESC_hailstone-roll := Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m) or an iallocator request (-I) and prints the groups of nodes that can be rebooted together (no two nodes of a group hold the two halves of a drbd instance, or primaries of instances sharing a secondary), largest first and the master last, each split so that its non-redundant instances can move to other nodes of their group; --full-evacuation also migrates the drbd instances away and replaces the secondaries, --print-moves prints the moves, --one-step-only only the first group. Choose the nodes with --node-tags, -G, --skip-non-redundant; --offline-maintenance pretends every instance is off. With -L, -X carries the groups out one after the other: evacuates the nodes of their running instances, reboots them with --reboot-command (or waits for the operator), waits until Ganeti reaches them, resynchronises the drbd disks and brings every instance back; it never reboots the master node and stops with exit status 1, saying what is left to do, on a failed job or reboot.

MAN_NAME_hailstone-repair := repair Ganeti instances on offline nodes as harep 3.0.2 does
MAN_DESC_hailstone-repair := Reads the cluster over Luxi (-L) and carries out the auto-repair tags of the instances (ganeti:watcher:autorepair:TYPE on the cluster, a node group or the instance, with ganeti:watcher:autorepair:suspend:[TIME]): the pending repairs whose jobs ended become results, and every drbd or plain instance with an offline node gets, as far as its policy allows, a new secondary (fix-storage), a failover (failover) or its disks recreated and its OS reinstalled (reinstall), recorded in pending and result tags; the new nodes are chosen by the default iallocator of the cluster. --dry-run prints the jobs instead of submitting them; --job-delay waits before each repair so that its tag is set first. Run it from cron on the master, as harep.

MAN_NAME_hailstone-htools := run the hailstone programs under the names of the Ganeti htools
MAN_DESC_hailstone-htools := Called as hbal, hspace, hsqueeze, hcheck, hinfo, hscan, hroller or harep (a link to it), runs hailstone-balance, hailstone-space, hailstone-squeeze, hailstone-check, hailstone-info, hailstone-scan, hailstone-roll or hailstone-repair with the command line of the original. hailstone-htools enable makes those names in /usr/bin links to it, each original moved aside with dpkg-divert (to NAME.htools) so that package upgrades keep it; hailstone-htools disable puts the originals back; hailstone-htools status says what each name runs. Removing the package puts the originals back.

# man_page PROGRAM: its man page from --help and --version (help2man) and
# its bash completion (the long options of --help), into the package.
define man_page
	printf '[NAME]\n%s \\- %s\n[DESCRIPTION]\n%s\n[SEE ALSO]\nhailstone(1), hailstone-balance(1), hailstone-squeeze(1), hailstone-groups(1), hailstone-space(1), hailstone-check(1), hailstone-info(1), hailstone-scan(1), hailstone-roll(1), hailstone-repair(1), hailstone-htools(1), gnt-cluster(8); /usr/share/doc/hailstone/README.md\n' \
	  '$(1)' '$(MAN_NAME_$(1))' '$(MAN_DESC_$(1))' > target/deb/$(1).h2m
	help2man --no-info --no-discard-stderr --section=1 --include=target/deb/$(1).h2m \
	  --manual='hailstone' target/release/$(1) | gzip -9n > $(MAN1)/$(1).1.gz
	printf 'complete -o default -W "%s" %s\n' \
	  "$$(target/release/$(1) --help | grep -oE -- '--[a-z0-9-]+' | sort -u | tr '\n' ' ')" '$(1)' \
	  > $(COMPLETIONS)/$(1)
endef

deb: ## Build target/deb/hailstone_VERSION_ARCH.deb: the allocator as /usr/lib/ganeti/iallocators/hailstone, the planners in /usr/bin, man pages from --help (help2man, installed if missing), bash completions and the documentation.
	command -v help2man >/dev/null || (apt-get update && apt-get install -y help2man)
	rm -rf $(DEB_ROOT)
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(CURDIR)/$(DEB_ROOT)
	install -d $(MAN1) $(COMPLETIONS) $(DEB_ROOT)/usr/share/doc/hailstone/docs $(DEB_ROOT)/DEBIAN
	$(call man_page,hailstone)
	$(call man_page,hailstone-balance)
	$(call man_page,hailstone-squeeze)
	$(call man_page,hailstone-groups)
	$(call man_page,hailstone-space)
	$(call man_page,hailstone-check)
	$(call man_page,hailstone-info)
	$(call man_page,hailstone-scan)
	$(call man_page,hailstone-roll)
	$(call man_page,hailstone-repair)
	$(call man_page,hailstone-htools)
	install -m 0644 README.md $(DEB_ROOT)/usr/share/doc/hailstone/README.md
	install -m 0644 docs/*.md docs/accepted-differences.txt $(DEB_ROOT)/usr/share/doc/hailstone/docs/
	install -m 0644 LICENSE $(DEB_ROOT)/usr/share/doc/hailstone/copyright
	printf 'Package: hailstone\nVersion: %s\nArchitecture: %s\nMaintainer: hailstone developers <hailstone@localhost>\nDepends: libc6\nRecommends: ganeti-3.0\nSection: admin\nPriority: optional\nDescription: Ganeti iallocator and planners: hail, hbal, hsqueeze, hspace, hcheck, hinfo, hscan, hroller and harep, faster\n hailstone answers Ganeti'"'"'s iallocator requests with hail 3.0.2'"'"'s decisions,\n refuses bad input with clear errors and explains its answers (--explain).\n hailstone-balance and hailstone-squeeze plan as hbal and hsqueeze do;\n hailstone-space counts free capacity as hspace does;\n hailstone-check, hailstone-info, hailstone-scan and hailstone-roll\n report and plan as hcheck, hinfo, hscan and hroller do;\n hailstone-repair repairs instances as harep does.\n' \
	  '$(DEB_VERSION)' '$(DEB_ARCH)' > $(DEB_ROOT)/DEBIAN/control
	printf '#!/bin/sh\n# Removing hailstone gives the htools names back to the originals.\nset -e\nif [ "$$1" = remove ] && [ -x /usr/bin/hailstone-htools ]; then /usr/bin/hailstone-htools disable >/dev/null; fi\n' > $(DEB_ROOT)/DEBIAN/prerm
	chmod 0755 $(DEB_ROOT)/DEBIAN/prerm
	dpkg-deb --root-owner-group --build $(DEB_ROOT) target/deb/
	dpkg-deb --info target/deb/hailstone_$(DEB_VERSION)_$(DEB_ARCH).deb | sed -n '1,4p'

e2e: ## Build and install the Debian package, build a 4-node Ganeti 3.0.2 lab cluster (../shared/tools/ganeti-lab), run every allocator operation through Ganeti's own commands, compare each captured request's answer with hail's, compare the planners and checkers with the originals on the live cluster, carry out reboots (hailstone-roll -X) and repairs (against harep), switch the htools names and back, tear down (about 9 minutes; needs root and Linux namespaces; HAILSTONE_E2E=skip skips on purpose).
	bash tests/e2e/run.sh

lint: ## Check formatting and clippy warnings.
	$(CARGO) fmt --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

fmt: ## Format the code.
	$(CARGO) fmt

clean: ## Remove build products.
	$(CARGO) clean
