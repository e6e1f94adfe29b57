#!/usr/bin/env bash
# Makes sure the Debian packages a test command needs are installed: installs them where it can
# (root with apt-get, as on CI), and otherwise says what to install. Usage: ensure-packages.sh PKG…
set -euo pipefail
declare -A binary=([chromium]=/usr/bin/chromium [nginx]=/usr/sbin/nginx)
missing=()
for pkg in "$@"; do
  [ -x "${binary[$pkg]:-/usr/bin/$pkg}" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} (Debian packages the tests use)…" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "the tests need Debian's ${missing[*]}: run  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
