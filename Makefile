# CipherStore: `make demo` runs the demo, `make test` runs the tests.
# Both install what is missing first (libsqlcipher-dev and the sqlcipher shell).

SWIFT ?= swift
APT_PACKAGES = libsqlcipher-dev sqlcipher

.PHONY: deps demo test build bench clean

deps:
	@./Tools/scripts/install-dependencies.sh $(APT_PACKAGES)

build: deps
	$(SWIFT) build

demo: deps
	$(SWIFT) run cipherstore demo

test: deps
	$(SWIFT) test

# Benchmarks: a separate package (Tools/Benchmarks), release builds. QUICK=1 for a smoke run.
bench: deps
	@./Tools/scripts/install-dependencies.sh libsqlite3-dev
	QUICK=$(QUICK) ./Tools/Benchmarks/run.sh

clean:
	rm -rf .build Tools/Benchmarks/.build
