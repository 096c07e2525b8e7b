# eddy: the two commands of the README, and the longer targets.
#   make run       install missing packages, build, run the default scene
#   make test      install missing packages, build, run every test (ctest)
#   make validate  full-size validation runs (minutes)      make bench   benchmark tables
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: deps configure build run test validate bench sanitize install clean

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) > /dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@if [ -x $(BUILD)/apps/cli/eddy ]; then $(BUILD)/apps/cli/eddy run; else $(BUILD)/bench/example_smoke; fi

test: build
	@cd $(BUILD) && ctest -LE validate --output-on-failure -j $(JOBS)

validate: build
	@cd $(BUILD) && ctest -L validate --output-on-failure -V

bench: build
	@$(BUILD)/bench/bench

sanitize:
	@$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DEDDY_SANITIZE=ON -DEDDY_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)"

install: build
	@cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) build-asan
