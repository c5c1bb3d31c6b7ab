// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` in plain strings is the configuration syntax
// The MCP conformance suite's client under test: dsh's own mcp() plugin on a real host.
// Usage (by the suite): MCP_CONFORMANCE_SCENARIO=<name> node dsh-client.mjs <server-url>
// It connects, calls every tool the server lists through the pipeline, and exits 0 when the
// server was reached (1 with the server's lastError otherwise). The suite's checks decide.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '@deepseek-ai/dsh-core';
import { mcp } from '../dist/index.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');

/** OAuth settings from the scenario's context; secrets go through `${VAR}` as a user would write them. */
function oauthFor() {
  if (context.client_id === undefined) {
    // The suite's authorization servers accept this metadata document as client id when they support CIMD.
    return { clientMetadataUrl: 'https://conformance-test.local/client-metadata.json' };
  }
  const grant = scenario.startsWith('auth/client-credentials') ? 'client_credentials' : 'authorization_code';
  return {
    grant,
    clientId: context.client_id,
    ...(context.client_secret === undefined ? {} : { clientSecret: '${CONFORMANCE_CLIENT_SECRET}' }),
    ...(context.private_key_pem === undefined ? {} : { privateKey: '${CONFORMANCE_PRIVATE_KEY}' }),
    ...(context.signing_algorithm === undefined ? {} : { signingAlgorithm: context.signing_algorithm }),
  };
}

/** The person at the browser: opens the authorization page and follows its redirect to dsh's loopback callback. */
async function authorize({ url: page }) {
  const response = await fetch(page, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (location === null) return false;
  await fetch(location);
  return true;
}

/** Arguments that satisfy a simple input schema. */
function argsFor(schema) {
  const args = {};
  for (const [key, property] of Object.entries(schema?.properties ?? {})) {
    const type = property?.type;
    args[key] = type === 'number' || type === 'integer' ? 2 : type === 'boolean' ? true : 'dsh';
  }
  return args;
}

const dir = mkdtempSync(join(tmpdir(), 'dsh-conformance-'));
const plugin = mcp({
  servers: { conformance: { type: 'http', url, oauth: oauthFor() } },
  env: { CONFORMANCE_CLIENT_SECRET: context.client_secret, CONFORMANCE_PRIVATE_KEY: context.private_key_pem },
  authorize,
  authFile: join(dir, 'auth.json'),
  retry: { maxAttempts: 1 },
  // Accept every form with nothing filled in: the schema's defaults must be applied by dsh.
  elicit: () => ({ action: 'accept', content: {} }),
});
let code = 0;
try {
  const host = createHost({ defaultDecision: 'allow' });
  await host.use(plugin);
  await plugin.ready();
  const status = plugin.servers()[0];
  if (status?.state !== 'ready') {
    console.error(`not ready: ${JSON.stringify(status?.lastError)}`);
    code = 1;
  } else {
    const schemas = new Map(host.tools.schemas().map((s) => [s.name, s.inputSchema]));
    for (const tool of status.tools) {
      const { results } = await host.runStep({ calls: [{ id: tool.name, name: tool.name, args: argsFor(schemas.get(tool.name)) }] });
      console.log(`${tool.name}: ${JSON.stringify(results[0]).slice(0, 300)}`);
    }
  }
} catch (error) {
  console.error(error);
  code = 1;
} finally {
  await plugin.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
