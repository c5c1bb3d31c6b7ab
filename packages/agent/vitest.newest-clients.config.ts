import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, mergeConfig, type Plugin } from 'vitest/config';
import base from './vitest.config.js';

// The adapter tests against provider SDKs installed outside the workspace (the newest majors the
// peer ranges admit): scripts/ci/agent-newest-clients.sh installs them and sets the directory.
const dir = process.env.DSH_AGENT_CLIENTS_DIR;
if (dir === undefined || dir === '') throw new Error('DSH_AGENT_CLIENTS_DIR must name the directory the SDKs were installed in');
const sdks = /^(openai|@google\/genai|@anthropic-ai\/sdk)(\/.*)?$/;

/** Resolves each SDK import (subpaths too) as if it were made from the scratch directory, export conditions and all. */
function clientsFrom(from: string): Plugin {
  const seen = new Set<string>();
  // The resolver looks from a real file: without one it falls back to the workspace's copies.
  const importer = join(from, 'entry.js');
  if (!existsSync(importer)) writeFileSync(importer, '');
  return {
    name: 'dsh-agent-newest-clients',
    enforce: 'pre',
    async resolveId(id, _importer, options) {
      if (!sdks.test(id)) return null;
      const resolved = await this.resolve(id, importer, { ...options, skipSelf: true });
      if (resolved === null) throw new Error(`${id} is not installed in ${from}`);
      // Testing the workspace's copy by mistake would pass silently: refuse it.
      if (!resolved.id.startsWith(from)) throw new Error(`${id} resolved to ${resolved.id}, not to the copy in ${from}`);
      if (!seen.has(id)) {
        seen.add(id);
        console.log(`newest clients: ${id} -> ${resolved.id}`);
      }
      return resolved;
    },
  };
}

export default mergeConfig(
  base,
  defineConfig({
    plugins: [clientsFrom(dir)],
    // Inline the SDKs so that every import of them, theirs included, goes through the resolver above.
    test: { server: { deps: { inline: [sdks] } } },
  }),
);
