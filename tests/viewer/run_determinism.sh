#!/usr/bin/env bash
# viewer_replay_determinism: the same replay (determinism.replay: a left-drag and a right-drag that moves the
# obstacle, on the default scene with its emitters, random splats and post-processing) run twice gives the same
# screenshot, byte for byte: once with 1 OpenMP thread and once with 2 (the core and the renderer are
# deterministic for any thread count, and the step thread hands the simulation over in a fixed order). The status
# line, which shows measured frame times, is hidden. The screenshot must also show something (a blank window is
# the same every time too).
#   run_determinism.sh EDDY_VIEW CHECKER OUT_DIR
set -euo pipefail
view="$1"; checker="$2"; out="$3"
here="$(cd "$(dirname "$0")" && pwd)"
command -v xvfb-run > /dev/null || { echo "FAIL: xvfb-run not installed (apt-get install xvfb xauth)"; exit 1; }
mkdir -p "$out"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/lsan.supp:print_suppressions=0"
for threads in 1 2; do
  rm -f "$out/determinism_$threads.png"
  # a coarser grid than the viewer's default (64x36, dye 128x72): the same code paths at a quarter of the cost, which
  # keeps the test quick under AddressSanitizer
  xvfb-run -a -s "-screen 0 1024x768x24" "$view" default --threads "$threads" --grid 64x36 --set "dye_scale=[2,2]" \
    --window 480x270 --no-status \
    --replay "$here/determinism.replay" --screenshot-at 0.65 "$out/determinism_$threads.png"
done
"$checker" --lit "$out/determinism_1.png"
if cmp "$out/determinism_1.png" "$out/determinism_2.png"; then
  echo "ok   the two runs' screenshots are identical"
else
  echo "FAIL the two runs' screenshots differ ($out/determinism_1.png, $out/determinism_2.png)"
  exit 1
fi
