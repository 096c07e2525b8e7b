#!/usr/bin/env bash
# Runs the CUDA tests, the sanitizers and the bench on a machine with an NVIDIA GPU, writing logs into $OUT
# (default ./cuda_out). Uses prebuilt binaries in $PREBUILT when they run here, else builds with CMake.
# usage: bench/cuda/device_run.sh [test] [test2] [tiny] [san-tiny] [sanitize] [forces] [bench] [bench-quick] [ncu] [ncu-adv] [ncu-forces] [advexp] [ncu-adv-sum] [advcmp] [ncu-advm] [sass-adv] [step3d] [step512] [ncu3d] [ab] [san-race] [san-tiny2d] [ncu-tail] [clk2d] [ncuk] [ncu-vort] (EDDY_BUILD_DIR: build folder)
set -uo pipefail
OUT=${OUT:-$PWD/cuda_out}
mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PREBUILT:-$root/prebuilt}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$OUT/gpu.txt"
if ! ldd "$bin/test_cuda_backend" > /dev/null 2>&1 || ldd "$bin/test_cuda_backend" | grep -q "not found"; then
  echo "prebuilt binaries do not load here: building"
  cmake -S "$root" -B "${EDDY_BUILD_DIR:-/tmp/eddy-build}" -DEDDY_CUDA=ON -DEDDY_BUILD_APPS=OFF -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1
  cmake --build "${EDDY_BUILD_DIR:-/tmp/eddy-build}" -j16 --target test_cuda_backend bench_cuda >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  bin="${EDDY_BUILD_DIR:-/tmp/eddy-build}/tests/cuda"; cp "${EDDY_BUILD_DIR:-/tmp/eddy-build}/bench/cuda/bench_cuda" "$bin/"
fi
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
# compute-sanitizer tools ($1, space-separated) on test_cuda_backend with the arguments after $2 (the logs' prefix),
# kernels one by one (graphs off: compute-sanitizer does not follow conditional graph nodes here)
san_run() {
  local tools=$1 prefix=$2 tool limit
  shift 2
  for tool in $tools; do
    # racecheck on the 3D tiles is the slow one (> 150 s since the odd 3D case and the k_prolong8 comparisons)
    limit=150; [ "$tool" = racecheck ] && limit=400
    timeout $limit "$san" --tool $tool --print-limit 20 "$bin/test_cuda_backend" "$@" --no-graphs > "$OUT/${prefix}_$tool.log" 2>&1
    echo "$tool rc=$?"; grep -E "ERROR SUMMARY|HAZARD|checks" "$OUT/${prefix}_$tool.log" | head -5
  done
}
# k_tail's phase clocks ("tail clocks:" lines of a bench_cuda built with -DEDDY_CU_TAIL_CLOCKS) on stdin: per phase
# position, the mean cycles over the launches
# ncu_kernels REGEX NAME: the launches of kernels matching REGEX in one 3D step (bench_cuda in $NCU_BIN, default this
# run's; size $NCU_SIZE, default 256; settings $NCU_ENV as VAR=v ...): time, DRAM and L2 bytes, issue, warps active,
# registers and grid per launch into $OUT/NAME.csv, their means per kernel into $OUT/NAME.txt
ncu_kernels() {
  timeout 300 env ${NCU_ENV:-} "$ncu" --clock-control none --cache-control none --profile-from-start off --csv --page raw \
    -k "regex:$1" \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__inst_issued.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size \
    "${NCU_BIN:-$bin}/bench_cuda" --profile 3 "${NCU_SIZE:-256}" 0 > "$OUT/$2.csv" 2>&1; echo "$2 rc=$?"
  awk -F'","' '/^"ID"/{for(i=1;i<=NF;i++){gsub(/"/,"",$i);if($i=="Kernel Name")kn=i;if($i=="gpu__time_duration.sum")t=i;if($i=="dram__bytes_read.sum")dr=i;if($i=="dram__bytes_write.sum")dw=i;if($i=="sm__inst_issued.avg.pct_of_peak_sustained_active")is=i;if($i=="sm__warps_active.avg.pct_of_peak_sustained_active")wa=i;if($i=="launch__registers_per_thread")rg=i;if($i=="launch__grid_size")gs=i}next}
    kn&&/^"[0-9]/{for(i=1;i<=NF;i++)gsub(/[,"]/,"",$i);n=$kn;sub(/\(.*/,"",n);T[n]+=$t;R[n]+=$dr;W[n]+=$dw;I[n]+=$is;A[n]+=$wa;C[n]++;G[n]=$rg" "$gs}
    END{for(n in T)printf "%-44s n=%3d t=%8.0f rd=%6.1fMB wr=%6.1fMB issue=%5.1f warps=%5.1f regs/grid=%s\n",n,C[n],T[n]/C[n],R[n]/C[n]/1e6,W[n]/C[n]/1e6,I[n]/C[n],A[n]/C[n],G[n]}' \
    "$OUT/$2.csv" | sort | tee "$OUT/$2.txt"
}
tail_clocks() {
  grep "^tail clocks:" | awk '{for (i = 3; i <= NF; i++) { if ($i == "total") { tot += $(i + 1); break } s[i] += $i; m = i } c++}
    END {printf "launches %d\n", c; for (i = 3; i <= m; i++) printf "%d:%.0f ", i - 2, s[i] / c; printf "\ntotal %.0f\n", tot / c}'
}
for what in "$@"; do
  case "$what" in
  test) timeout 300 "$bin/test_cuda_backend" > "$OUT/test.log" 2>&1; echo "test rc=$?"; grep -E "FAIL|checks|SKIP" "$OUT/test.log" | head -40 ;;
  sanitize)
    # the kernels one by one (graphs off): compute-sanitizer does not follow conditional graph nodes here
    timeout 200 "$san" --tool memcheck --leak-check full "$bin/test_cuda_backend" --quick --no-graphs > "$OUT/memcheck.log" 2>&1; echo "memcheck rc=$?"; tail -3 "$OUT/memcheck.log"
    timeout 300 "$san" --tool racecheck --racecheck-report all "$bin/test_cuda_backend" --tiny --no-graphs > "$OUT/racecheck.log" 2>&1; echo "racecheck rc=$?"; tail -3 "$OUT/racecheck.log" ;;
  test2)
    # determinism: the test twice, its per-check output compared (issue 7, cuda_notes 61)
    for k in 1 2; do timeout 300 "$bin/test_cuda_backend" > "$OUT/test_$k.log" 2>&1; echo "test $k rc=$?"; grep -E "checks" "$OUT/test_$k.log"; done
    if cmp -s "$OUT/test_1.log" "$OUT/test_2.log"; then echo "test2: identical output"; else echo "test2: outputs differ"; diff "$OUT/test_1.log" "$OUT/test_2.log" | head -20; fi ;;
  tiny)
    for k in 1 2; do timeout 60 "$bin/test_cuda_backend" --tiny > "$OUT/tiny_$k.log" 2>&1; echo "tiny $k rc=$?"; grep -E "FAIL|checks" "$OUT/tiny_$k.log" | head -8; done
    timeout 60 "$bin/test_cuda_backend" --tiny --no-graphs > "$OUT/tiny_ng.log" 2>&1; echo "tiny no-graphs rc=$?"; grep -E "FAIL|checks" "$OUT/tiny_ng.log" | head -8 ;;
  san-race) san_run racecheck san --tiny ;;
  san-tiny) san_run "memcheck racecheck initcheck synccheck" san --tiny ;;
  san-tiny2d) san_run "memcheck racecheck initcheck synccheck" san2d --tiny2d ;;
  forces)
    # buoyancy and vorticity confinement only: their test cases (plain, memcheck, racecheck) and stage-table rows
    timeout 120 "$bin/test_cuda_backend" --forces > "$OUT/forces.log" 2>&1; echo "forces rc=$?"; grep -E "FAIL|checks" "$OUT/forces.log" | head -20
    for tool in memcheck racecheck; do
      timeout 150 "$san" --tool $tool "$bin/test_cuda_backend" --forces --quick > "$OUT/forces_$tool.log" 2>&1; echo "$tool rc=$?"; tail -2 "$OUT/forces_$tool.log"
    done
    timeout 100 "$bin/bench_cuda" --forces-only 2>&1 | grep -E "copy kernel|buoyancy|vorticity" ;;
  bench) timeout 400 "$bin/bench_cuda" > "$OUT/bench.log" 2>&1; echo "bench rc=$?"; cat "$OUT/bench.log" ;;
  ncu)
    for cfg in "2 2048" "3 256"; do
      tag=$(echo $cfg | tr ' ' '_')
      timeout 150 "$ncu" --clock-control none --profile-from-start off --print-summary per-kernel \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
        "$bin/bench_cuda" --profile $cfg > "$OUT/ncu_$tag.log" 2>&1; echo "ncu $cfg rc=$?"
    done ;;
  ncu-adv)
    # the advection kernels of one 3D 256^3 step in detail: bandwidth, caches, stalls, registers
    timeout 200 "$ncu" --clock-control none --profile-from-start off -k regex:k_adv -c 8 --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy \
      --section SchedulerStats "$bin/bench_cuda" --profile 3 256 0 > "$OUT/ncu_adv.log" 2>&1; echo "ncu-adv rc=$?" ;;
  ncu-forces)
    # buoyancy, vorticity confinement and diagnostics of one 2D 2048^2 and one 3D 256^3 step: time, DRAM bytes,
    # SM and issue utilisation, occupancy
    for cfg in "2 2048" "3 256"; do
      tag=$(echo $cfg | tr ' ' '_')
      timeout 100 "$ncu" --clock-control none --profile-from-start off -k regex:'k_vort|k_buoy|k_diag' \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_issued.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed \
        "$bin/bench_cuda" --profile $cfg > "$OUT/ncu_forces_$tag.log" 2>&1; echo "ncu-forces $cfg rc=$?"
      grep -E "k_vort|k_buoy|k_diag|duration|bytes|throughput|issued|warps_active" "$OUT/ncu_forces_$tag.log" | head -60
    done ;;
  step2d) timeout 120 "$bin/bench_cuda" --only 2048 --no-stages > "$OUT/step2d.log" 2>&1; echo "step2d rc=$?"; cat "$OUT/step2d.log" ;;
  prof2d)
    # every kernel of one 2D 2048^2 step (warm_start 0, graphs off), one CSV row per launch; and, where nsys is
    # installed, the graph-launched steps' timeline per kernel node (the gaps between the kernels included)
    timeout 200 "$ncu" --clock-control none --profile-from-start off --csv --page raw --metrics gpu__time_duration.sum \
      "$bin/bench_cuda" --profile 2 2048 0 > "$OUT/prof2d.csv" 2>&1; echo "prof2d rc=$?"
    nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -n 1)
    if [ -n "$nsys" ]; then
      timeout 200 "$nsys" profile --cuda-graph-trace=node -o /tmp/eddy_nsys -f true "$bin/bench_cuda" --only 2048 --no-stages --steps 5 > "$OUT/nsys_run.log" 2>&1
      timeout 100 "$nsys" stats --report cuda_gpu_trace --format csv -o "$OUT/nsys2d" /tmp/eddy_nsys.nsys-rep > "$OUT/nsys_stats.log" 2>&1
      echo "nsys rc=$?"; ls -la "$OUT"
    else echo "no nsys"; fi ;;
  prof2dhot)
    # as prof2d, the caches kept between kernels (closer to the step, where the coarse levels stay in L2)
    timeout 200 "$ncu" --clock-control none --cache-control none --profile-from-start off --csv --page raw --metrics gpu__time_duration.sum \
      "$bin/bench_cuda" --profile 2 2048 0 > "$OUT/prof2dhot.csv" 2>&1; echo "prof2dhot rc=$?" ;;
  ncu2d)
    # the level-0 solver kernels of one 2D 2048^2 step in detail (the first V-cycle's and CG update's launches)
    timeout 300 "$ncu" --clock-control none --cache-control none --profile-from-start off \
      -k regex:'k_sweep_tile|k_residual_w|k_restrict|k_cg_update|k_apply|k_cg_direction' -c 22 --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy \
      --section SchedulerStats "$bin/bench_cuda" --profile 2 2048 0 > "$OUT/ncu2d.log" 2>&1; echo "ncu2d rc=$?" ;;
  advexp)
    # issue 7: the advection rows of the stage tables (2D 2048^2, 3D 256^3), then the 2048^2 and 256^3 steps
    timeout 100 "$bin/bench_cuda" --stages-only 2>&1 | grep -E "advect|^stages"
    for n in 2048 256; do timeout 100 "$bin/bench_cuda" --only $n --no-stages 2>&1 | grep -E "^  (2D|3D)"; done ;;
  ncu-adv-sum)
    # the advection kernels of one 2D 2048^2 and one 3D 256^3 step: time, DRAM bytes, issue, occupancy, L1 hits
    for cfg in "2 2048" "3 256"; do
      tag=$(echo $cfg | tr ' ' '_')
      timeout 100 "$ncu" --clock-control none --profile-from-start off -k regex:k_adv -c 8 \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__inst_issued.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,launch__registers_per_thread \
        "$bin/bench_cuda" --profile $cfg 0 > "$OUT/ncu_adv_$tag.log" 2>&1; echo "ncu-adv-sum $cfg rc=$?"
      grep -E "k_adv|duration|bytes|issued|warps_active|hit_rate|dram__throughput|inst_executed|registers" "$OUT/ncu_adv_$tag.log" | sed -E 's/ +/ /g' | head -90
    done ;;
  advcmp)
    # issue 7, version 18: the advection rows (2D 2048^2, 3D 256^3) of main's binary ($MAIN_BIN, if set) and this
    # one back to back, twice; then the steps of both
    {
    for k in 1 2; do
      if [ -n "${MAIN_BIN:-}" ]; then echo "main $k:"; timeout 100 "$MAIN_BIN" --stages-only 2>&1 | grep -E "copy kernel|advect|^stages"; fi
      echo "branch $k:"; timeout 100 "$bin/bench_cuda" --advect-only 2>&1 | grep -E "copy kernel|advect|^stages"
    done
    for n in 2048 256; do
      if [ -n "${MAIN_BIN:-}" ]; then echo "main steps $n:"; timeout 100 "$MAIN_BIN" --only $n --no-stages 2>&1 | grep -E "^  (2D|3D)"; fi
      echo "branch steps $n:"; timeout 100 "$bin/bench_cuda" --only $n --no-stages 2>&1 | grep -E "^  (2D|3D)"
    done
    } 2>&1 | tee "$OUT/advcmp.log" ;;
  ncu-advm)
    # time, executed instructions and DRAM bytes of every advection kernel of one 3D 256^3 step: main ($MAIN_BIN)
    # and this one
    m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_issued.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum"
    run_ncu() { timeout 100 "$ncu" --clock-control none --profile-from-start off -k regex:k_adv -c 8 --metrics $m "$@" 3 256 0 2>&1 | grep -E "k_adv|duration|inst_executed|registers|warps_active|inst_issued|dram__bytes" | sed -E 's/ +/ /g; s/\(ecu::.*//; s/\(Tracer.*//'; }
    {
    if [ -n "${MAIN_BIN:-}" ]; then echo "ncu main:"; run_ncu "$MAIN_BIN" --profile; fi
    echo "ncu branch:"; run_ncu "$bin/bench_cuda" --profile
    } > "$OUT/ncu_advm.log" 2>&1
    grep -E "^ncu|k_adv|duration" "$OUT/ncu_advm.log" | sed -E 's/ void / /; s/, Context.*//' ;;
  sass-adv)
    # the SASS of a few 3D advection kernels (cuobjdump is not installed on the development machine)
    cod=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -n 1)
    obj=$(find "${EDDY_BUILD_DIR:-/tmp/eddy-build}" -name 'k_advect.cu.o' | head -n 1)
    if [ -n "$cod" ] && [ -n "$obj" ]; then
      "$cod" -sass "$obj" > /tmp/adv_sass.txt 2>&1; echo "sass rc=$? $(wc -l < /tmp/adv_sass.txt) lines"
      for f in k_advm_maccormackILi3ELin1ELi0ELi3E k_advm_maccormackILi3ELin1ELi0ELi2E k_adv_maccormackILi3ELi1ELi0E k_adv_backwardILi3ELi1ELi0E k_advm_backwardILi3ELin1ELi0ELi1E; do
        awk -v f="$f" '/Function :/ {p = index($0, f) > 0} p' /tmp/adv_sass.txt > "$OUT/sass_$f.txt"; echo "$f: $(grep -cE '^ +/\*[0-9a-f]{4}\*/' "$OUT/sass_$f.txt") instructions"
      done
    else echo "no cuobjdump ($cod) or object ($obj)"; fi ;;
  step3d)
    # issue 7, version 19: the 3D 256^3 steps (warm start 0 and 1), twice
    for k in 1 2; do timeout 120 "$bin/bench_cuda" --only 256 --no-stages 2>&1 | grep -E "^  3D|copy kernel"; done | tee "$OUT/step3d.log" ;;
  ab)
    # A/B in one run (compare only within a run: the steps move ~75 us between runs): $AB holds "label|bin_dir|VAR=v ..."
    # entries separated by ';' (bin_dir: a folder holding bench_cuda, relative to the root or absolute; empty: this
    # run's binary), run alternating for $AB_ROUNDS rounds (default 3) on the steps of $AB_SIZE (2048, 4096, 256 or
    # 512; default 2048) and, with AB_ADVECT=1, the advection rows first; with $CLK_BIN (a bench_cuda built with
    # -DEDDY_CU_TAIL_CLOCKS) also k_tail's phase clocks of one 2048^2 step per entry's settings
    IFS=';' read -ra sets <<< "${AB:-}"
    for k in $(seq 1 "${AB_ROUNDS:-3}"); do for set in "${sets[@]}"; do
      IFS='|' read -r lab dir envs <<< "$set"
      case "$dir" in "") dir="$bin" ;; /*) ;; *) dir="$root/$dir" ;; esac
      if [ "${AB_ADVECT:-0}" = 1 ]; then
        echo "[$lab $k advect] $(env $envs timeout 100 "$dir/bench_cuda" --advect-only 2>&1 | grep -E "advect" | tr -s ' ' | tr '\n' ' ')"
      fi
      echo "[$lab $k] $(env $envs timeout 120 "$dir/bench_cuda" --only "${AB_SIZE:-2048}" --no-stages 2>&1 | grep -E "^  (2D|3D)" | tr -s ' ' | tr '\n' ' ')"
    done; done | tee "$OUT/ab.log"
    if [ -n "${CLK_BIN:-}" ]; then for set in "${sets[@]}"; do
      IFS='|' read -r lab dir envs <<< "$set"
      echo "clocks [$lab]"; env $envs timeout 60 "$CLK_BIN/bench_cuda" --profile 2 2048 0 2>&1 | tail_clocks
    done | tee "$OUT/ab_clk.txt"; fi ;;
  ncu-tail)
    # issue 7, after version 21: k_tail of one 2D 2048^2 step (3 launches): warp stall reasons (an instruction-fetch
    # bound kernel shows "No Instruction" stalls), source counters, instruction statistics (not run yet)
    timeout 200 "$ncu" --clock-control none --cache-control none --profile-from-start off -k regex:k_tail -c 3 \
      --section WarpStateStats --section SourceCounters --section InstructionStats --section LaunchStats \
      "$bin/bench_cuda" --profile 2 2048 0 > "$OUT/ncu_tail.log" 2>&1; echo "ncu-tail rc=$?"
    grep -iE "stall|no instruction|duration|executed instructions|registers" "$OUT/ncu_tail.log" | head -40 ;;
  clk2d)
    # issue 7, version 21: k_tail's phase clocks, one profiled 2D 2048^2 run (5 steps, graphs off) of the bench_cuda in
    # $CLK_BIN (built with -DEDDY_CU_TAIL_CLOCKS)
    timeout 60 "${CLK_BIN:-$bin}/bench_cuda" --profile 2 2048 0 > "$OUT/clk2d.log" 2>&1; echo "clk2d rc=$?"
    tail_clocks < "$OUT/clk2d.log" | tee "$OUT/clk2d_sum.txt" ;;
  step512) timeout 200 "$bin/bench_cuda" --only 512 --no-stages --steps 10 2>&1 | tee "$OUT/step512.log" ;;
  ncu3d)
    # every kernel launch of one 3D 256^3 step (warm start 0, graphs off, caches kept), summed per kernel
    ncu_kernels 'k_' ncu3d ;;
  ncu-vort)
    # issue 7, version 22: the vorticity kernels of one 3D 256^3 and one 2D 2048^2 step (bench_cuda in $VORT_BIN,
    # default this run's): ncu's full set (stall reasons, instruction statistics, source counters) as text, the
    # per-instruction SASS table (executed instructions, stall samples) as CSV, and cuobjdump's SASS of the kernels
    # and of any cubin in $VORT_CUBINS
    vb=${VORT_BIN:-$bin}; tag=${VORT_TAG:-a}
    cod=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -n 1)
    "$cod" -sass "$vb/bench_cuda" > /tmp/vort_sass_all.txt 2>&1; echo "sass rc=$?"
    awk '/Function :/ {p = index($0, "k_vort") > 0} p' /tmp/vort_sass_all.txt > "$OUT/sass_${tag}.txt"
    grep "Function :" "$OUT/sass_${tag}.txt"
    for f in ${VORT_CUBINS:-}; do "$cod" -sass "$f" > "$OUT/sass_$(basename "$f" .cubin).txt" 2>&1; echo "cubin $f rc=$?"; done
    for cfg in "3 256" "2 2048"; do
      ct=${tag}_$(echo $cfg | tr ' ' '_')
      timeout 150 "$ncu" --clock-control none --profile-from-start off -k regex:k_vort -c 1 --set full --import-source no \
        -f -o /tmp/vort_$ct "$vb/bench_cuda" --profile $cfg 0 > "$OUT/ncu_vort_$ct.log" 2>&1; echo "ncu-vort $cfg rc=$?"
      "$ncu" --import /tmp/vort_$ct.ncu-rep --page details > "$OUT/ncu_vort_${ct}_details.txt" 2>&1
      "$ncu" --import /tmp/vort_$ct.ncu-rep --page source --print-source sass --csv > "$OUT/ncu_vort_${ct}_src.csv" 2>&1
      echo "src rc=$? $(wc -l < "$OUT/ncu_vort_${ct}_src.csv") lines"
      grep -E "Duration|Executed Ipc A|Issue Slots Busy|Registers Per|Achieved Occupancy|Executed Instructions  |No Eligible|DRAM Through|Memory Through" "$OUT/ncu_vort_${ct}_details.txt" | head -20
    done ;;
  ncuk)
    # issue 7, version 22: the launches of kernels matching $NCU_K (regex; default the level-0 transfers and CG
    # kernels), as ncu3d
    ncu_kernels "${NCU_K:-k_residual|k_restrict|k_prolong8|k_apply|k_cg_direction|k_cg_update|k_cg_apply}" "ncuk${NCU_TAG:-}" ;;
  bench-quick) timeout 200 "$bin/bench_cuda" --quick > "$OUT/bench.log" 2>&1; echo "bench rc=$?"; cat "$OUT/bench.log" ;;
  esac
done
