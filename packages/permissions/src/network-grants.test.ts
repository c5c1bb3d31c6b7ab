// Issue 35 item 3: a sandboxed command's new network destination is a decision through the
// pipeline, "remembered for the session or the project through permissions' grants". Toward the
// rules it is a `WebFetch` of its host, so the grant is that one domain, never every destination.

import { createServer, type Server } from 'node:http';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { probeBwrap } from './fixtures/bwrap.js';
import { makeProject, type Project } from './fixtures/project.js';
import { type PermissionPromptReply, type PermissionPromptRequest, permissions } from './index.js';

const bwrap = await probeBwrap();

let server: Server;
let port = 0;
let requests = 0;
beforeAll(async () => {
  server = createServer((_req, res) => {
    requests += 1;
    res.end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let project: Project;
beforeEach(() => {
  project = makeProject();
});
afterEach(() => project.dispose());

/** A session in the project: bash allowed by a rule, its network through the proxy, every prompt answered `answer`. */
async function session(answer: PermissionPromptReply) {
  const prompts: PermissionPromptRequest[] = [];
  const perms = permissions({ projectDir: project.dir, homeDir: project.home, settingsFiles: false, rules: { allow: ['Bash'] } });
  const t = await createTestHost({
    cwd: project.dir,
    homeDir: project.home,
    plugins: [toolBash({ sandbox: { provider: 'bwrap', network: { allowAddresses: ['127.0.0.1'] } } }), perms],
    approval: perms.approval((request) => {
      prompts.push(request);
      return answer;
    }),
  });
  const fetch = async (host: string): Promise<string> => {
    const command = `env -u NO_PROXY -u no_proxy curl -sS --max-time 60 http://${host}:${port}/ || echo failed`;
    const outcome = await t.call('bash', { command });
    expect(outcome.status).toBe('ok');
    return (outcome as unknown as { output: { stdout: string } }).output.stdout.trim();
  };
  return { ...t, prompts, fetch };
}

describe.skipIf(!bwrap.ok)('network destinations remembered through grants (real bubblewrap)', () => {
  it('asks once with the domain as the suggestion, and a project grant lets a later session through unasked', async () => {
    const first = await session({ answer: 'allowed-project' });
    const before = requests;
    expect(await first.fetch('127.0.0.1')).toBe('reached');
    expect(first.prompts.map((p) => [p.tool.name, p.remember.suggestions[0]?.rules])).toEqual([
      ['bash_network', ['WebFetch(domain:127.0.0.1)']],
    ]);
    const later = await session('rejected');
    expect(await later.fetch('127.0.0.1')).toBe('reached');
    expect(later.prompts).toHaveLength(0);
    expect(requests).toBe(before + 2);
  });

  it('remembers that domain only: another name for the same address is asked again', async () => {
    const first = await session({ answer: 'allowed-project' });
    expect(await first.fetch('127.0.0.1')).toBe('reached');
    const later = await session('rejected');
    const before = requests;
    expect(await later.fetch('localhost')).not.toBe('reached');
    expect(later.prompts.map((p) => p.args)).toEqual([expect.objectContaining({ host: 'localhost', port })]);
    expect(requests).toBe(before);
  });
});
