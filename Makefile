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
# The held-out shape's run, the first: relocation and the planners.
BENCH_HOSTING_ARGS ?= --modes relocate,balance,squeeze,compress,space --sizes 100,1000
# The dependency bench's part and options (make bench-deps), e.g.
# DEPS_ARGS='json --sizes 1000'.
DEPS_ARGS ?=
BENCH = target/release/hailstone-bench --install-hail --hail $(HAIL) --hailstone $(RELEASE_BIN) --hail-cap $(HAIL_CAP)
# The Ganeti release the compat targets compare with: 3.0 (Debian's
# ganeti-htools-3.0) or 3.1 (Ganeti 3.1.0's htools, built by make oracle-3.1).
GANETI ?= 3.0

RELEASE_BIN := target/release/hailstone

.PHONY: help build run test compat compat-full oracle-3.1 bench bench-deps install deb deb-source e2e lint fmt clean fuzz miri

help: ## List the targets.
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -e 's/:.*## /\t/' | expand -t 16

build: ## Build the release binaries (target/release/hailstone and the development tools).
	$(CARGO) build --release --locked --workspace

run: build ## Answer a bundled sample request (SAMPLE=...).
	$(RELEASE_BIN) $(SAMPLE)

test: ## Run every test (unit, snapshots, hostile inputs, properties, safety, man pages, --report pages in headless Chromium, every figure recomputed on generated clusters and Ganeti's data files; installs man-db and chromium if missing, fetches Ganeti's ganeti-testsuite package into target/ganeti-testsuite the first time).
	command -v man >/dev/null || (apt-get update && apt-get install -y --no-install-recommends man-db)
	command -v chromium >/dev/null || (apt-get update && apt-get install -y --no-install-recommends chromium)
	HAILSTONE_CHROMIUM=$$(command -v chromium) HAILSTONE_TESTSUITE_FETCH=1 $(CARGO) test --locked --workspace

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

bench: build ## Time relocation and the planners on the generator's held-out hosting shape first (BENCH_HOSTING_ARGS), then hailstone against hail on clusters of 20 to 2,000 nodes, hailstone alone on 5,000 and 10,000, hailstone-balance against hbal on 20 to 1,000 (hbal not above 100; 1,000 nodes balanced to convergence), hailstone-squeeze against hsqueeze on 20 to 200, hailstone-groups compress alone on 2,000 nodes in 10 groups (Ganeti has none; its runs compared with each other), and hailstone-space (its default count and --allocator-model) against hspace on 5 to 200 (about 35 minutes, about 19 more for the space rows, whose cap is at least 300 s, and about 1 more per shape for compress) (HAIL_CAP, BENCH_ARGS, e.g. BENCH_ARGS='--modes space'); then hailstone-balance --max-copy against hbal's plan cut at budgets of 10%, 25% and 50% of its data on 24 held-out clusters of 12 to 200 nodes (hailstone-budget, a few minutes).
	$(BENCH) --shape hosting $(BENCH_HOSTING_ARGS) $(BENCH_ARGS)
	$(BENCH) $(BENCH_ARGS)
	target/release/hailstone-budget --balance target/release/hailstone-balance

bench-deps: build ## Hold hailstone's own JSON reader and second reading thread against simd-json, serde_json and one thread, and the hasher of its maps (rustc-hash) against SipHash, on generated requests of 100 to 10,000 nodes: callgrind's instruction counts and median times (installs valgrind if missing; about 15 minutes; DEPS_ARGS, e.g. DEPS_ARGS='json --sizes 1000'; devtools/benches/deps).
	command -v valgrind >/dev/null || (apt-get update && apt-get install -y --no-install-recommends valgrind)
	$(CARGO) bench --locked -p hailstone-devtools --bench deps -- $(DEPS_ARGS)

fuzz: ## Fuzz every target for FUZZ_SECONDS each (default 60; FUZZ_TARGETS=... to choose; see fuzz/README.md).
	FUZZ_SECONDS="$(FUZZ_SECONDS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" FUZZ_SANITIZER="$(FUZZ_SANITIZER)" FUZZ_ARGS="$(FUZZ_ARGS)" CARGO="$(CARGO)" fuzz/run.sh

miri: ## Run the unit tests of the modules with unsafe code (the JSON scans' SSE2 loads, the reading thread's processor calls) under Miri, on the nightly toolchain (installed with rustup when missing; about 4 minutes).
	rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	rustup +nightly component list --installed | grep -q '^miri' || rustup component add --toolchain nightly miri rust-src
	$(CARGO) +nightly miri test --lib -- read::json::bytes read::split::processor program::hail::input

# The programs installed in $(PREFIX)/bin, and those installed in
# $(PREFIX)/lib/ganeti/iallocators, where Ganeti looks for allocators: the
# one list of programs (programs.list).
PLANNERS := $(shell awk '!/^\#/ && $$2 == "bin" {print $$1}' programs.list)
ALLOCATORS := $(shell awk '!/^\#/ && $$2 == "iallocators" {print $$1}' programs.list)

install: ## Install the allocators ($(ALLOCATORS)) in $(PREFIX)/lib/ganeti/iallocators and the planners and checkers ($(PLANNERS)) in $(PREFIX)/bin, as programs.list says (built without the development tools).
	$(CARGO) build --release --locked -p hailstone
	install -d $(DESTDIR)$(PREFIX)/lib/ganeti/iallocators $(DESTDIR)$(PREFIX)/bin
	for p in $(ALLOCATORS); do install -m 0755 target/release/$$p $(DESTDIR)$(PREFIX)/lib/ganeti/iallocators/$$p; done
	for p in $(PLANNERS); do install -m 0755 target/release/$$p $(DESTDIR)$(PREFIX)/bin/$$p; done

DEB_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB         := target/deb/hailstone_$(DEB_VERSION)_$(DEB_ARCH)

vendor: Cargo.lock ## Copy the sources of every crate of Cargo.lock into vendor/ (cargo vendor; about 70 MB, not in git), where the Debian build (debian/rules, debian/cargo/config.toml) takes them from, offline.
	rm -rf vendor
	$(CARGO) vendor --locked vendor >/dev/null
	touch vendor

deb: vendor ## Build target/deb/hailstone_VERSION_ARCH.deb from the source package in debian/ (dpkg-buildpackage, offline from vendor/; installs debhelper if missing): the allocator as /usr/lib/ganeti/iallocators/hailstone, hailstone-shadow beside it, the planners in /usr/bin, their man pages, bash completions and the documentation; lintian checks it (installed if missing).
	command -v dh >/dev/null || (apt-get update && apt-get install -y --no-install-recommends debhelper)
	[ "$$(dpkg-parsechangelog -SVersion)" = '$(DEB_VERSION)' ] || \
	  { echo "debian/changelog's version is not Cargo.toml's ($(DEB_VERSION))" >&2; exit 1; }
	rm -f $(DEB).deb $(DEB).buildinfo $(DEB).changes
	install -d target/deb
	HAILSTONE_DEB_DIR=$(CURDIR)/target/deb CARGO='$(CARGO)' dpkg-buildpackage -us -uc -b \
	  --buildinfo-option=-u$(CURDIR)/target/deb --buildinfo-file=$(DEB).buildinfo \
	  --changes-option=-u$(CURDIR)/target/deb --changes-file=$(DEB).changes
	dpkg-deb --info $(DEB).deb | sed -n '1,4p'
	command -v lintian >/dev/null || (apt-get update && apt-get install -y --no-install-recommends lintian)
	lintian --fail-on error,warning $(DEB).deb

deb-source: vendor ## Build the source package (target/deb/src/hailstone_VERSION.dsc and .tar.xz: the files git knows and vendor/) and check it with lintian.
	rm -rf target/deb/src
	install -d target/deb/src/hailstone-$(DEB_VERSION)
	git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C target/deb/src/hailstone-$(DEB_VERSION)
	cp -al vendor target/deb/src/hailstone-$(DEB_VERSION)/
	cd target/deb/src && dpkg-source --build hailstone-$(DEB_VERSION)
	command -v lintian >/dev/null || (apt-get update && apt-get install -y --no-install-recommends lintian)
	lintian --fail-on error,warning target/deb/src/hailstone_$(DEB_VERSION).dsc

e2e: ## Build and install the Debian package, build a 4-node Ganeti 3.0.2 lab cluster (../shared/tools/ganeti-lab), run every allocator operation through Ganeti's own commands, compare each captured request's answer with hail's, compare the planners and checkers with the originals on the live cluster, carry out plans under faults (a second planner, kill -9, Ctrl-C), reboots (hailstone-roll -X) and repairs (against harep), switch the htools names and back, tear down (about 13 minutes; needs root and Linux namespaces; HAILSTONE_E2E=skip skips on purpose).
	bash tests/e2e/run.sh

lint: ## Check formatting, clippy warnings, the code documentation's links (every module's, private items too), and that the fuzz targets build (fuzz/ is its own workspace; installs g++ for libFuzzer if missing).
	$(CARGO) fmt --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings -A rustdoc::private_intra_doc_links" $(CARGO) doc --locked --no-deps --document-private-items --workspace
	command -v c++ >/dev/null || (apt-get update && apt-get install -y --no-install-recommends g++)
	cd fuzz && RUSTC_BOOTSTRAP=1 $(CARGO) check --locked --bins

fmt: ## Format the code.
	$(CARGO) fmt

clean: ## Remove build products.
	$(CARGO) clean
