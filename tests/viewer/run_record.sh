#!/usr/bin/env bash
# viewer_record_replay: --record during a replay records the session as it ran, so that replaying the recording runs
# it again. A replay (record.replay: times between frames, positions with many decimals, keys, drags on the default
# scene) is run while recording; replaying the recording must give the same screenshot, byte for byte, and recording
# that replay must give the same file again. A bench's scripted drag and keys are recorded too. (The recording held
# only the window's closing: its replay was an empty run.) SDL's dummy video driver: no display needed.
#   run_record.sh EDDY_VIEW OUT_DIR
set -uo pipefail
view="$1"; out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/lsan.supp:print_suppressions=0"
export SDL_VIDEODRIVER=dummy
rm -rf "$out" && mkdir -p "$out" || exit 1
failures=0
check() { # check DESCRIPTION COMMAND...: the command must succeed
  local what="$1"; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}

# a small grid keeps it quick under AddressSanitizer; the default scene has emitters and random splats
opts=(default --threads 1 --grid 32x18 --set "dye_scale=[2,2]" --window 160x90 --no-status)
timeout 60 "$view" "${opts[@]}" --replay "$here/record.replay" --screenshot-at 0.6 "$out/plain.png" > /dev/null
timeout 60 "$view" "${opts[@]}" --replay "$here/record.replay" --record "$out/B.replay" --screenshot-at 0.6 "$out/A.png" > /dev/null
timeout 60 "$view" "${opts[@]}" --replay "$out/B.replay" --record "$out/C.replay" --screenshot-at 0.6 "$out/B.png" > /dev/null
check "recording does not change the run" cmp "$out/plain.png" "$out/A.png"
check "the recording replays the same picture" cmp "$out/A.png" "$out/B.png"
check "recording the recording's replay gives the same file" cmp "$out/B.replay" "$out/C.replay"
check "every replayed event is in the recording (20 and a quit)" \
  test "$(grep -vc '^#' "$out/B.replay")" -eq 21
check "the recording ends with a quit, at the start of the last frame" \
  grep -qx '0.5833333637565374 quit' <(tail -n 1 "$out/B.replay")
# without --screenshot-at the recording's replay stops by itself (status 0), not running on for ever
check "the recording's replay stops by itself" timeout 30 "$view" "${opts[@]}" --replay "$out/B.replay"

# the bench's scripted stroke and its keys (post-processing off, reset) are the session's input too
timeout 60 "$view" empty --threads 1 --window 64x36 --bench 3 --record "$out/bench.replay" > /dev/null
check "the bench's stroke is recorded" grep -q ' down 0.75 0.5 left$' "$out/bench.replay"
check "the bench's keys are recorded" grep -qz 'key p.*key r' "$out/bench.replay"
check "the bench's recording replays and stops" timeout 30 "$view" empty --threads 1 --window 64x36 --replay "$out/bench.replay"

[ "$failures" -eq 0 ] && echo "all recordings replay the session" || { echo "$failures failed"; exit 1; }
