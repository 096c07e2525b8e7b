#!/usr/bin/env bash
# Builds the eddy web page into OUT_DIR (default build/web): the core + web/wasm/eddy_web.c compiled to
# WebAssembly by Debian's emscripten (offline), and the page's HTML/JS copied beside it.
#   web/build.sh [OUT_DIR]          (CMake's `web` target runs this; `make web` too)
# Serve it with:  node web/serve.mjs build/web 8080   (or: python3 -m http.server -d build/web 8080)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build/web}"
emcc="${EMCC:-emcc}"
if ! command -v "$emcc" > /dev/null; then
  echo "web/build.sh: emscripten (emcc) not found; install it with: apt-get install emscripten" >&2
  exit 1
fi
mkdir -p "$out"
# Debian's emscripten runs its JavaScript optimizer with node, which finds Debian's acorn module only here.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
# The emscripten cache (system libraries built on first use) goes into the build folder when the default one is
# not writable (Debian's is under /usr/share).
if [ ! -w /usr/share/emscripten/cache ] 2>/dev/null; then export EM_CACHE="${EM_CACHE:-$out/.emcache}"; fi
# The render module draws the views and the post-processing; its flipbook writes PNGs (libpng), which the page
# does not need.
render_sources="$(ls "$root"/src/render/*.c | grep -v '/flipbook\.c$' | tr '\n' ' ')"
# Without OpenMP (emscripten has none) the omp pragmas are ignored, leaving thread-count variables unused.
exports='["_malloc","_free","_eddy_web_new","_eddy_web_destroy","_eddy_web_set","_eddy_web_set_boundary",'\
'"_eddy_web_build","_eddy_web_add_obstacle","_eddy_web_add_emitter","_eddy_web_splat","_eddy_web_taylor_green",'\
'"_eddy_web_box","_eddy_web_width","_eddy_web_height","_eddy_web_time","_eddy_web_error","_eddy_web_pointer",'\
'"_eddy_web_drag","_eddy_web_options","_eddy_web_view","_eddy_web_step","_eddy_web_render"]'
"$emcc" -O2 -std=c11 -D_XOPEN_SOURCE=700 -ffp-contract=off -Wall -Wextra -Wno-unknown-pragmas -Wno-unused-parameter -Wno-unused-variable \
  -I"$root/web/wasm" -I"$root/include" -I"$root/src" -I"$root/src/render" -I"$root/src/io" -I"$root/apps/viewer" \
  "$root"/src/*.c $render_sources "$root/src/io/image.c" "$root/src/io/files.c" "$root/apps/viewer/stir.c" \
  "$root/web/wasm/eddy_web.c" \
  -s ENVIRONMENT=web -s MODULARIZE=1 -s EXPORT_NAME=createEddyModule -s ALLOW_MEMORY_GROWTH=1 \
  -s EXPORTED_FUNCTIONS="$exports" -s EXPORTED_RUNTIME_METHODS='["cwrap","UTF8ToString","stringToUTF8","lengthBytesUTF8"]' \
  -o "$out/eddy.js"
cp "$root/web/index.html" "$root/web/main.js" "$root/web/serve.mjs" "$out/"
# the preset scenes, for the page's scene selector (it shows the 2D ones), and their list
mkdir -p "$out/scenes"
cp "$root"/scenes/*.json "$out/scenes/"
(cd "$root/scenes" && ls *.json | sed 's/\.json$//' | awk 'BEGIN{printf "["} {printf "%s\"%s\"", (NR>1 ? "," : ""), $0} END{print "]"}') \
  > "$out/scenes/index.json"
echo "web page built in $out"
