#!/usr/bin/env bash
# web_setup: installs playwright-core (the version pinned in package-lock.json) into DIR/node_modules with npm ci,
# once: later runs find it there and do nothing (offline-safe after the first install). Playwright drives
# Debian's chromium (/usr/bin/chromium); it downloads no browser of its own.
#   setup.sh DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="$1"
mkdir -p "$dir"
want="$(node -e "console.log(require('$here/package-lock.json').packages['node_modules/playwright-core'].version)")"
have="$(node -e "try{console.log(require('$dir/node_modules/playwright-core/package.json').version)}catch(e){console.log('')}")"
if [ "$have" = "$want" ] && cmp -s "$here/package-lock.json" "$dir/package-lock.json"; then
  echo "playwright-core $have already installed in $dir"
  exit 0
fi
cp "$here/package.json" "$here/package-lock.json" "$dir/"
command -v npm > /dev/null || { echo "FAIL: npm not found (it comes with node.js)"; exit 1; }
cd "$dir"
npm ci --no-audit --no-fund --loglevel=error
echo "installed playwright-core $want in $dir"
