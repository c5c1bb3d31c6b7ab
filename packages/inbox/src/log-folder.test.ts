import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createInbox, type Inbox } from './inbox.js';

const line = (seq: number, type: string, data: unknown, call?: string) =>
  `${JSON.stringify({ seq, at: new Date(0).toISOString(), session: 'logged', type, ...(call ? { call, token: 't' } : {}), data })}\n`;

let inbox: Inbox;
afterEach(() => inbox?.close());

async function sessions(base: string, token: string | undefined, port: string) {
  const res = await fetch(`${base}/api/sessions`, { headers: { Cookie: `dsh-inbox-${port}=${token}` } });
  return ((await res.json()) as { sessions: unknown }).sessions as { id: string; status: string; events: number; problems: string[] }[];
}

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a folder of session logs', () => {
  it('tails a log, skips a corrupt line as a problem, and survives the folder disappearing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inbox-logs-'));
    const log = join(dir, 'run.jsonl');
    await writeFile(log, `${line(1, 'tool/call', { name: 'shell', args: { command: 'ls' } }, 'c1')}{"seq":2, torn garbage\n`);
    await writeFile(`${log}.lock`, '');
    inbox = createInbox({ pollMs: 20 });
    const url = new URL(await inbox.listen());
    await inbox.watchLogs(dir);
    const probe = () => sessions(url.origin, inbox.token, url.port);
    let [s] = await until(probe, (l) => l.length === 1);
    expect(s).toMatchObject({ id: 'logged', status: 'running', events: 1 });
    expect(s?.problems.join()).toContain('line 2 is not JSON');

    await appendFile(
      log,
      `${line(2, 'tool/result', { name: 'shell', outcome: { status: 'ok', output: 'x', stage: 'execute' } }, 'c1')}{"seq":3,`,
    );
    [s] = await until(probe, (l) => l[0]?.events === 2);
    await rm(`${log}.lock`);
    [s] = await until(probe, (l) => l[0]?.status === 'done');

    await rm(dir, { recursive: true });
    [s] = await until(probe, (l) => (l[0]?.problems ?? []).some((p) => p.includes('disappeared')));
    expect(s?.problems.some((p) => p.startsWith('INBOX_LOG_PROBLEM'))).toBe(true);
  });
});
