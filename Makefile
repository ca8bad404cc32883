# Kindred: `make run` starts the service on the embedded store, `make test` runs the whole suite.
# Both install what they need first (Debian packages, npm packages from the lockfile, native builds).
SHELL := /bin/bash
.DEFAULT_GOAL := run

# Debian packages the build and the tests need.
APT_PACKAGES := clang lld g++ libfaiss-dev libopenblas-dev liblapack-dev chromium nginx

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup apt npm build native run test bench-all clean

setup: apt npm

apt:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

npm: node_modules/.kindred-stamp

node_modules/.kindred-stamp: package.json package-lock.json
	ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
	@touch $@

native: setup
	$(MAKE) -C native
	$(MAKE) -C native/als

build: setup native
	npx tsc -p tsconfig.json

run: build
	node dist/src/server.js

test: build
	npx mocha

clean:
	rm -rf dist native/build
