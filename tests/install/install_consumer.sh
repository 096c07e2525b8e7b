#!/usr/bin/env bash
# usage: install_consumer.sh BUILD_DIR CONSUMER_SRC CC
set -euo pipefail
build="$1"; src="$2"; cc="$3"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/include/eddy/eddy.h"
# find_package(eddy)
cmake -S "$src" -B "$work/b1" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_COMPILER="$cc" > "$work/cfg.log"
cmake --build "$work/b1" > "$work/build.log"
"$work/b1/consumer" | grep -q "consumer: ok"
# pkg-config
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n 1)
export PKG_CONFIG_PATH="$libdir"
"$cc" -std=c11 "$src/consumer.c" -o "$work/consumer_pc" $(pkg-config --cflags eddy) $(pkg-config --libs --static eddy)
"$work/consumer_pc" | grep -q "consumer: ok"
echo "install_consumer: find_package and pkg-config consumers built and ran: 2 passed, 0 failed"
