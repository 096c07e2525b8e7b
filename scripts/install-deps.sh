#!/usr/bin/env bash
# Installs the Debian packages in deps.txt that are missing. Idempotent; does nothing when all are present.
set -euo pipefail
list="${1:-$(dirname "$0")/../deps.txt}"
missing=()
while read -r pkg _; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done < "$list"
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "eddy: installing missing Debian packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
