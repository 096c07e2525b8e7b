#!/usr/bin/env bash
# viewer_replay_drag: under Xvfb, eddy-view replays a left-drag (drag.replay) on the empty scene with a fixed 1/60 s
# step, saves the window at t = 0.75 s, and check_drag_png checks the screenshot. Post-processing is off: its bloom
# spreads a glow of bright dye over the whole box by design, which would hide dye in the wrong place.
#   run_drag.sh EDDY_VIEW CHECKER OUT_DIR
set -euo pipefail
view="$1"; checker="$2"; out="$3"
here="$(cd "$(dirname "$0")" && pwd)"
command -v xvfb-run > /dev/null || { echo "FAIL: xvfb-run not installed (apt-get install xvfb xauth)"; exit 1; }
mkdir -p "$out"
# sanitizer builds: leaks that system libraries under SDL keep for the process's life are not eddy's
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/lsan.supp:print_suppressions=0"
rm -f "$out/viewer_drag.png"
# threads=1: the test machine is shared; one thread keeps the run time steady
xvfb-run -a -s "-screen 0 1024x768x24" "$view" empty --threads 1 --window 640x360 --no-post --replay "$here/drag.replay" \
  --screenshot-at 0.75 "$out/viewer_drag.png"
"$checker" "$out/viewer_drag.png"
