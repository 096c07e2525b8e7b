#!/usr/bin/env bash
# viewer_bad_input: eddy-view refuses bad command-line values and output paths before it opens a window: each case
# must exit with status 2 and a message naming the option and value (or the file and why), leave what the user had
# untouched, and take no time (SDL's dummy video driver: nothing is drawn). Each case also gets a replay that quits
# at once, so a value that is wrongly accepted ends the run quickly (status 0: a failure here) instead of hanging.
#   run_bad_input.sh EDDY_VIEW OUT_DIR
set -uo pipefail
view="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; out="$2" # absolute: one case runs in another folder
here="$(cd "$(dirname "$0")" && pwd)"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/lsan.supp:print_suppressions=0"
export SDL_VIDEODRIVER=dummy
rm -rf "$out" && mkdir -p "$out" || exit 1
quit="$out/quit.replay"
printf '0.05 quit\n' > "$quit"
failures=0

# expect_refused "EXPECTED TEXT" ARGS...: status 2, the text on stderr
expect_refused() {
  local expect="$1"; shift
  local err rc
  err=$(timeout 60 "$view" "$@" 2>&1 > /dev/null); rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$expect" <<< "$err"; then
    echo "ok   $* -> $(head -n 1 <<< "$err")"
  else
    echo "FAIL $*: expected status 2 and '$expect', got status $rc: $err"
    failures=$((failures + 1))
  fi
}

# values that were taken silently, cut, wrapped or made the viewer run for ever
expect_refused "--window 10x10: expected" empty --window 10x10 --replay "$quit"
expect_refused "--window 99999999999x100: expected" empty --window 99999999999x100 --replay "$quit"
expect_refused "--threads abc: expected" empty --threads abc --replay "$quit"
expect_refused "--threads 1e9: expected" empty --threads 1e9 --replay "$quit"
expect_refused "--fixed-dt 0.01abc: expected" empty --fixed-dt 0.01abc --replay "$quit"
expect_refused "--fixed-dt 1000: expected" empty --fixed-dt 1000 --replay "$quit"
expect_refused "--fixed-dt 1e-30: expected" empty --fixed-dt 1e-30 --replay "$quit"
expect_refused "--seed abc: expected" empty --seed abc --replay "$quit"
expect_refused "--screenshot-at inf: expected" empty --screenshot-at inf "$out/never.png"
expect_refused "--view temperature: expected dye, speed, vorticity or pressure" empty --view temperature --replay "$quit"
expect_refused "--vorticity 1e30: expected" empty --vorticity 1e30 --replay "$quit"
expect_refused "--bench 99999999999: expected" empty --bench 99999999999
expect_refused "does not combine with --screenshot-at" empty --bench 5 --screenshot-at 0.05 "$out/bench.png"
# an option given twice: the first was dropped without a word
expect_refused "--window given twice" empty --window 320x180 --window 640x360 --replay "$quit"
expect_refused "--replay given twice" empty --replay "$quit" --replay "$quit"

# outputs: a file of the user's is not replaced without --force; a link is not written through
echo "the user's picture" > "$out/mine.png"
expect_refused "the file exists" empty --replay "$quit" --screenshot-at 0 "$out/mine.png"
echo "the user's notes" > "$out/notes.txt"
expect_refused "the file exists" empty --replay "$quit" --record "$out/notes.txt"
echo "the link's target" > "$out/target.txt"
ln -s target.txt "$out/link.replay"
expect_refused "symbolic link" empty --replay "$quit" --record "$out/link.replay"
for f in mine.png:"the user's picture" notes.txt:"the user's notes" target.txt:"the link's target"; do
  if [ "$(cat "$out/${f%%:*}")" = "${f#*:}" ]; then
    echo "ok   $out/${f%%:*} unchanged"
  else
    echo "FAIL $out/${f%%:*} was changed"
    failures=$((failures + 1))
  fi
done
# with --force the screenshot replaces the file, as asked
if timeout 60 "$view" empty --threads 1 --window 64x36 --replay "$quit" --screenshot-at 0 "$out/mine.png" --force > /dev/null &&
   [ "$(head -c 4 "$out/mine.png" | tail -c 3)" = "PNG" ]; then
  echo "ok   --force: the screenshot replaced mine.png"
else
  echo "FAIL --force: mine.png was not replaced by a PNG"
  failures=$((failures + 1))
fi

# the S key saves under the next free eddy-NNNN.png: a dangling link or a file of the user's is a taken name
keys="$out/keys"
mkdir -p "$keys" && ln -s missing.png "$keys/eddy-0001.png" && echo "the user's eddy-0002" > "$keys/eddy-0002.png"
printf '0.05 key s\n0.3 quit\n' > "$keys/s.replay"
( cd "$keys" && timeout 60 "$view" empty --threads 1 --window 64x36 --replay s.replay > /dev/null 2>&1 )
if [ -L "$keys/eddy-0001.png" ] && [ ! -e "$keys/missing.png" ] && [ "$(cat "$keys/eddy-0002.png")" = "the user's eddy-0002" ] &&
   [ "$(head -c 4 "$keys/eddy-0003.png" 2> /dev/null | tail -c 3)" = "PNG" ]; then
  echo "ok   S key: saved eddy-0003.png past a dangling link and a user's file"
else
  echo "FAIL S key: expected eddy-0003.png with eddy-0001.png (dangling link) and eddy-0002.png untouched: $(ls -l "$keys")"
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] && echo "all bad inputs refused" || { echo "$failures failed"; exit 1; }
