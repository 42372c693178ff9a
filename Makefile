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

RELEASE_BIN := target/release/hailstone

.PHONY: help build run test compat compat-full bench install lint fmt clean fuzz

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -e 's/:.*## /\t/' | expand -t 16

build: ## Build the release binaries (target/release/hailstone and the development tools).
	$(CARGO) build --release --locked --workspace

run: build ## Answer a bundled sample request (SAMPLE=...).
	$(RELEASE_BIN) $(SAMPLE)

test: ## Run every test (unit, snapshots, hostile inputs, properties, safety).
	$(CARGO) test --locked --workspace

COMPAT := target/release/hailstone-compat --install-hail --hail $(HAIL) --hailstone $(RELEASE_BIN)

compat: build ## Compare with the real hail on the samples and a small generated corpus: answers, then -S/-t/--simulate/-p; hailstone-balance with hbal; hailstone-squeeze with hsqueeze (installs them if missing).
	$(COMPAT) --profile ci
	$(COMPAT) --profile ci --suite datafiles
	$(COMPAT) --profile ci --suite balance
	$(COMPAT) --profile ci --suite squeeze

compat-full: build ## The large compatibility corpus (2-200 nodes, hundreds per request type; 220 clusters of 5-60 nodes for hbal; 300 of 4-24 for hsqueeze), every suite.
	$(COMPAT) --profile full
	$(COMPAT) --profile full --suite datafiles
	$(COMPAT) --profile full --suite balance
	$(COMPAT) --profile full --suite squeeze

bench: build ## Time hailstone against hail on clusters of 20 to 2,000 nodes, and hailstone-balance against hbal on 20 to 1,000 (about 25 minutes; HAIL_CAP, BENCH_ARGS, e.g. BENCH_ARGS='--modes balance').
	target/release/hailstone-bench --install-hail --hail $(HAIL) --hailstone $(RELEASE_BIN) --hail-cap $(HAIL_CAP) $(BENCH_ARGS)

fuzz: ## Fuzz every target for FUZZ_SECONDS each (default 60; FUZZ_TARGETS=... to choose; see fuzz/README.md).
	FUZZ_SECONDS="$(FUZZ_SECONDS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" CARGO="$(CARGO)" fuzz/run.sh

install: ## Install the allocator as $(PREFIX)/lib/ganeti/iallocators/hailstone and the planners in $(PREFIX)/bin (built without the development tools).
	$(CARGO) build --release --locked -p hailstone
	install -d $(DESTDIR)$(PREFIX)/lib/ganeti/iallocators $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/lib/ganeti/iallocators/hailstone
	install -m 0755 target/release/hailstone-balance $(DESTDIR)$(PREFIX)/bin/hailstone-balance
	install -m 0755 target/release/hailstone-squeeze $(DESTDIR)$(PREFIX)/bin/hailstone-squeeze

lint: ## Check formatting and clippy warnings.
	$(CARGO) fmt --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

fmt: ## Format the code.
	$(CARGO) fmt

clean: ## Remove build products.
	$(CARGO) clean
