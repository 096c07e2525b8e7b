#!/bin/sh
# Runs a libFuzzer target briefly over its corpus in the repository. New inputs it finds go to a scratch folder
# in the build tree (the first corpus folder is the one libFuzzer writes to), never into the repository.
# usage: run_fuzzer.sh FUZZER CORPUS_DIR SCRATCH_DIR RUNS
set -e
fuzzer="$1"; corpus="$2"; scratch="$3"; runs="$4"
mkdir -p "$scratch"
export TMPDIR="$scratch"
exec "$fuzzer" -runs="$runs" -max_total_time=20 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
     -print_final_stats=1 "$scratch" "$corpus"
