# CipherStore: `make demo` runs the demo, `make test` runs the tests.
# Both install what is missing first (libsqlcipher-dev and the sqlcipher shell).

SWIFT ?= swift
APT_PACKAGES = libsqlcipher-dev sqlcipher

# SQLCIPHER=4: `make build`, `make test` and `make demo` link SQLCipher 4.6.1, built once from
# Debian 13's source package into .build-sqlcipher4/ (`make sqlcipher4`), with their own build
# folder, its pkg-config file and library path, and its `sqlcipher` shell first on PATH. The
# system's SQLCipher stays installed: the interop tests use its shell too.
# Without SQLCIPHER, everything links the system's SQLCipher (3.4.1 on Debian 12).
SQLCIPHER ?=
# Where SQLCIPHER=4 builds: its own folder by default, so switching back and forth rebuilds
# nothing. CI, which tests each version once, passes `.build` to reuse the packages compiled for
# the first run (only CipherStore's own targets are rebuilt against the other library).
SQLCIPHER4_SCRATCH ?= .build-sqlcipher4/swift
ifeq ($(SQLCIPHER),4)
SQLCIPHER4_PREFIX = $(CURDIR)/.build-sqlcipher4/prefix
SQLCIPHER_ENV = PKG_CONFIG_PATH=$(SQLCIPHER4_PREFIX)/lib/pkgconfig LD_LIBRARY_PATH=$(SQLCIPHER4_PREFIX)/lib \
	CIPHERSTORE_SQLCIPHER3_SHELL=/usr/bin/sqlcipher \
	PATH="$(SQLCIPHER4_PREFIX)/bin:$$PATH" CIPHERSTORE_EXPECTED_SQLCIPHER=4.6.1
SCRATCH = --scratch-path $(SQLCIPHER4_SCRATCH)
LIBRARY = sqlcipher4
else ifeq ($(SQLCIPHER),)
# With SQLCipher 4.6.1 built (`make sqlcipher4`), its shell joins the interop tests across
# versions (the tests that need it say so when it is missing; .ci/run builds it first).
SQLCIPHER_ENV = $(if $(wildcard $(CURDIR)/.build-sqlcipher4/prefix/bin/sqlcipher),CIPHERSTORE_SQLCIPHER4_SHELL=$(CURDIR)/.build-sqlcipher4/prefix/bin/sqlcipher)
SCRATCH =
LIBRARY =
else
$(error SQLCIPHER=$(SQLCIPHER) is not known: leave it out for the system SQLCipher, or use SQLCIPHER=4)
endif
SWIFT_RUN = $(SQLCIPHER_ENV) $(SWIFT)
# The version line of the cipherstore just built: which SQLCipher and SQLite it loaded.
LINKED_VERSION = $(SQLCIPHER_ENV) "$$($(SWIFT_RUN) build $(SCRATCH) --show-bin-path)/cipherstore" --version

.PHONY: deps sqlcipher4 demo test build docs install uninstall bench check-sanitizers fuzz clean

deps:
	@./Tools/scripts/install-dependencies.sh $(APT_PACKAGES)

# SQLCipher 4.6.1 in .build-sqlcipher4/prefix (library, shell, pkg-config file); once.
sqlcipher4: deps
	@./Tools/scripts/build-sqlcipher4.sh

build: deps $(LIBRARY)
	$(SWIFT_RUN) build $(SCRATCH)

# The DocC documentation of the library, as a static site in .build-docs/ (warnings are errors).
docs: deps
	$(SWIFT) package --allow-writing-to-directory .build-docs generate-documentation --target CipherStore \
		--output-path .build-docs --transform-for-static-hosting --warnings-as-errors
	@echo "Documentation in .build-docs/ (open .build-docs/documentation/cipherstore/index.html through a web server)."

# Installs the `cipherstore` binary (release build) and its shell completions under PREFIX.
# With SQLCIPHER=4, the SQLCipher 4.6.1 library goes to PREFIX/lib/cipherstore and the binary
# finds it there (an rpath), whatever else the system has: nothing to set at run time.
PREFIX ?= /usr/local
ifeq ($(SQLCIPHER),4)
INSTALL_LIBDIR = $(PREFIX)/lib/cipherstore
INSTALL_RPATH = -Xlinker -rpath -Xlinker $(INSTALL_LIBDIR)
INSTALLED_ENV = LD_LIBRARY_PATH="$(DESTDIR)$(INSTALL_LIBDIR)"
endif
INSTALLED = $(INSTALLED_ENV) "$(DESTDIR)$(PREFIX)/bin/cipherstore"
install: deps $(LIBRARY)
	$(SWIFT_RUN) build $(SCRATCH) -c release --product cipherstore $(INSTALL_RPATH)
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" \
		"$(DESTDIR)$(PREFIX)/share/zsh/site-functions" "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 755 "$$($(SWIFT_RUN) build $(SCRATCH) -c release --show-bin-path)/cipherstore" "$(DESTDIR)$(PREFIX)/bin/cipherstore"
ifeq ($(SQLCIPHER),4)
	install -d "$(DESTDIR)$(INSTALL_LIBDIR)"
	cp -P "$(SQLCIPHER4_PREFIX)"/lib/libsqlcipher.so* "$(DESTDIR)$(INSTALL_LIBDIR)/"
endif
	$(INSTALLED) --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/cipherstore"
	$(INSTALLED) --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_cipherstore"
	$(INSTALLED) --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/cipherstore.fish"
	@echo "Installed $(DESTDIR)$(PREFIX)/bin/cipherstore and its completions: $$($(INSTALLED) --version)"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/cipherstore" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/cipherstore" \
		"$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_cipherstore" "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/cipherstore.fish"
	rm -rf "$(DESTDIR)$(PREFIX)/lib/cipherstore"

demo: deps $(LIBRARY)
	$(SWIFT_RUN) run $(SCRATCH) cipherstore demo
	@echo "Ran with $$($(LINKED_VERSION))"

# The command-line suites and the library's run in two processes at once; the suites that
# measure this process's resident memory run after them, one at a time (run-tests.sh says why).
# The last line names the SQLCipher linked.
test: deps $(LIBRARY)
	$(SWIFT_RUN) build $(SCRATCH) --build-tests
	$(SQLCIPHER_ENV) ./Tools/scripts/run-tests.sh "$$($(SWIFT_RUN) build $(SCRATCH) --show-bin-path)"
	@echo "Tested with $$($(LINKED_VERSION))"

# The concurrency tests (the queue, the pool, observation, the services, conversions with their
# second thread and their verification's second reader, key slots with their background
# derivation, backups while writers commit, the
# corruption notice) under ThreadSanitizer; the
# library's own suites (statements, rows, records, conversions, key slots, the pool, repair)
# under AddressSanitizer, except the long concurrency runs of the queue, observation and the
# services, which ThreadSanitizer already covers and which add minutes there and no other code.
# The command-line suites run the same library code in child processes and
# stay out of both, as do the memory tests (ASan changes resident memory and cannot run under
# `ulimit -v`). Leak reports are off: the Swift runtime's one-time allocations would drown real
# findings.
check-sanitizers: deps
	$(SWIFT) test --scratch-path .build-tsan --sanitize=thread \
		--filter 'QueueTests|PoolTests|InterruptTests|PrepareDatabaseTests|PoolKeyChangeTests|ObservationTests|TransactionObserverTests|DatabaseRegionObservationTests|StatusServiceTests|ConversionTests|KeySlotTests|OnlineBackupTests|CorruptionNoticeTests|AsyncConversionTests|SchemaCopyTests|TableContentDigestHalvesTests|ConversionCancellationTests'
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --scratch-path .build-asan --sanitize=address \
		--filter 'CipherStoreTests\.' --skip 'MemoryTests|QueueTests|ObservationTests|StatusServiceTests'

# libFuzzer (Tools/Fuzz), under AddressSanitizer, FUZZ_SECONDS seconds per target: `open` (whole
# database files, opened with the right key, a wrong key and none), `slots` (slot files: parser,
# recovery-key slots), `pages` (the page reader: HMAC and decryption of a first page, raw key)
# `records` (the record decoder), `repair` (the repair's page reader, b-tree and record
# parsers, on encrypted and on already-decrypted pages) and `repair-structured` (the whole
# salvage on files built from the input's decisions: valid headers, schemas, b-trees and WALs
# whose fields lie; an input slower than 2 s or a process above 1 GiB fails the run) and
# `tokenizer` (the `cjk` full-text tokenizer on any bytes, and the search patterns built from
# them, which must run and find the text they were built from). Each seed
# corpus is copied first, so the one in the repository stays small. FUZZ_ASAN=0 builds and runs
# the same targets without AddressSanitizer (its own build folder): a run rate without the
# sanitizer's cost, to compare with; the default build is the one that finds memory errors.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = open slots pages records repair repair-structured tokenizer
FUZZ_ASAN ?= 1
comma := ,
FUZZ_SANITIZE = $(if $(filter 0,$(FUZZ_ASAN)),fuzzer,fuzzer$(comma)address)
FUZZ_BUILD = $(if $(filter 0,$(FUZZ_ASAN)),.build-fuzz-plain,.build-fuzz)
fuzz: deps
	cd Tools/Fuzz && $(SWIFT) build -c release --scratch-path $(FUZZ_BUILD) -Xswiftc -sanitize=$(FUZZ_SANITIZE)
	for target in $(FUZZ_TARGETS); do \
		rm -rf .build-fuzz-corpus/$$target && mkdir -p .build-fuzz-corpus/$$target && cp Tools/Fuzz/Corpus/$$target/* .build-fuzz-corpus/$$target/ && \
		ASAN_OPTIONS=detect_leaks=0 Tools/Fuzz/$(FUZZ_BUILD)/release/fuzz $$target -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			$$( [ $$target = pages ] && echo -max_len=4096 ) $$( [ $$target = repair ] && echo -max_len=16384 ) \
			$$( [ $$target = repair-structured ] && echo -max_len=4096 -timeout=2 -rss_limit_mb=1024 -malloc_limit_mb=256 ) \
			-artifact_prefix=Tools/Fuzz/crash-$$target- .build-fuzz-corpus/$$target || exit 1; \
	done

# Benchmarks: a separate package (Tools/Benchmarks), release builds. QUICK=1 for a smoke run.
# A full run covers SQLCipher 3.4.1 (the system's), SQLCipher 4.6.1 and GRDB, and writes
# BENCHMARKS.md; SQLCIPHER=4 runs the CipherStore workloads on SQLCipher 4.6.1 alone.
bench: deps sqlcipher4
	@./Tools/scripts/install-dependencies.sh libsqlite3-dev
	QUICK=$(QUICK) SQLCIPHER=$(SQLCIPHER) ./Tools/Benchmarks/run.sh

clean:
	rm -rf .build .build-tsan .build-asan .build-sqlcipher4 .build-fuzz-corpus Tools/Benchmarks/.build Tools/Benchmarks/.build-sqlcipher4 Tools/Fuzz/.build-fuzz Tools/Fuzz/.build-fuzz-plain
