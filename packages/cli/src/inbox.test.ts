import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// The agent package's fake Chat Completions server: real HTTP on 127.0.0.1, checking every request it gets.
import type { FakeServer } from '../../agent/dist/testing/fake-http.js';
import { startOpenAIChatServer } from '../../agent/dist/testing/openai-chat-server.js';
import { dshInTerminal, terminalTestsRun, warnWithoutTmux } from './fixtures/dsh-terminal.js';
import { binPath, put, runDsh, scratchDir } from './fixtures/run-dsh.js';

warnWithoutTmux('inbox.test.ts');

const servers: FakeServer[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const s of servers.splice(0)) await s.close();
});

/** The scripted model: asks for a command that needs approval, then answers. */
async function model(): Promise<FakeServer> {
  const server = await startOpenAIChatServer([
    { text: 'I will write the file.', calls: [{ id: 'call_write', name: 'bash', args: '{"command":"echo approved > out.txt"}' }] },
    { text: 'All done.' },
  ]);
  servers.push(server);
  return server;
}

/** A `dsh` process that keeps running: its output so far, and a way to wait for a line of it. */
interface Running {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  exited(): Promise<number | null>;
}

function start(args: readonly string[], cwd: string, home: string): Running {
  const env: Record<string, string | undefined> = { ...process.env, HOME: home, DEEPSEEK_API_KEY: 'test-key' };
  delete env.FORCE_COLOR;
  const child = spawn(process.execPath, [binPath, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exit = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor: (pattern) =>
      until(
        `${pattern} in the output`,
        () => pattern.exec(out) ?? undefined,
        () => `${out}\n${err}`,
      ),
    exited: () => exit,
  };
}

/** Polls until `check` gives a value; the bound only ends a broken run, it is never a verdict on speed. */
async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, context: () => string): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`never saw ${what}:\n${context()}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

interface Session {
  readonly id: string;
  readonly status: string;
  readonly waiting: number;
  readonly events: number;
}

/** The inbox's API as a script sees it: the token as a bearer header. */
function api(url: string) {
  const parsed = new URL(url);
  const base = parsed.origin;
  const auth = { Authorization: `Bearer ${parsed.searchParams.get('token')}` };
  return {
    async sessions(): Promise<Session[]> {
      const res = await fetch(`${base}/api/sessions`, { headers: auth });
      return ((await res.json()) as { sessions: Session[] }).sessions;
    },
    async events(session: string): Promise<{ type: string; data: unknown }[]> {
      const res = await fetch(`${base}/api/sessions/${encodeURIComponent(session)}`, { headers: auth });
      return ((await res.json()) as { events: { type: string; data: unknown }[] }).events;
    },
    answer(session: string, call: string, body: unknown): Promise<Response> {
      return fetch(`${base}/api/sessions/${encodeURIComponent(session)}/calls/${encodeURIComponent(call)}/answer`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json', 'User-Agent': 'inbox-test' },
        body: JSON.stringify(body),
      });
    },
  };
}

const urlLine = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/;

describe('dsh run --inbox', () => {
  it('waits for the approval in the page when there is no terminal, and runs the call the page allowed', async () => {
    const server = await model();
    const root = scratchDir();
    const home = scratchDir();
    put(root, 'README.md', '# A project\n');
    const log = join(home, 'session.jsonl');
    const run = start(['run', 'write out.txt', '--inbox', '--base-url', server.url, '--log', log], root, home);
    const url = (await run.waitFor(urlLine))[1] as string;
    // Printed once: the token is a secret, not a banner.
    expect(run.stdout().split(url).length - 1).toBe(1);
    expect(run.stdout()).not.toContain('will be refused');
    const inbox = api(url);
    const waiting = await until('a waiting session', async () => (await inbox.sessions()).find((s) => s.waiting > 0), run.stdout);
    expect(waiting.id).toBe('session');
    expect(existsSync(join(root, 'out.txt'))).toBe(false);
    const res = await inbox.answer(waiting.id, 'call_write', { decision: 'allow-once' });
    expect(res.status).toBe(200);
    // The first answer wins: a second one is told what stands.
    const again = await inbox.answer(waiting.id, 'call_write', { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(await run.exited()).toBe(0);
    expect(run.stderr()).toBe('');
    expect(readFileSync(join(root, 'out.txt'), 'utf8')).toBe('approved\n');
    expect(run.stdout()).toMatch(/✔ bash \[call_write\] ok/);
    const events = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; data: { decision?: string; from?: string } });
    const who = events.find((e) => e.type === 'inbox/answer');
    expect(who?.data.decision).toBe('allow-once');
    expect(who?.data.from).toContain('inbox-test');
    expect(server.problems).toEqual([]);
  });

  it.runIf(terminalTestsRun)(
    'asks at the terminal and in the page at once; the page answers first and the terminal question is withdrawn',
    async () => {
      const server = await model();
      const root = scratchDir();
      const home = scratchDir();
      const log = join(home, 'session.jsonl');
      const args = ['run', 'write out.txt', '--inbox', '--base-url', server.url, '--log', log];
      const t = dshInTerminal({ root, home, args, env: { DEEPSEEK_API_KEY: 'test-key' }, columns: 250 });
      const screen = (): string => t.screen();
      try {
        // The terminal's question is open (readline reads the terminal from then on).
        await until('the question', () => (/\[n\] no\n +>/.test(screen()) ? true : undefined), screen);
        const url = urlLine.exec(screen())?.[1] as string;
        const inbox = api(url);
        const waiting = await until('a waiting session', async () => (await inbox.sessions()).find((s) => s.waiting > 0), screen);
        expect((await inbox.answer(waiting.id, 'call_write', { decision: 'allow-once' })).status).toBe(200);
        expect(await t.exitCode()).toBe('0');
        expect(screen()).toContain('→ answered in the inbox');
        expect(screen()).toMatch(/✔ bash \[call_write\] ok/);
      } finally {
        t.close();
      }
      expect(readFileSync(join(root, 'out.txt'), 'utf8')).toBe('approved\n');
    },
  );

  it('tells the model the message a person denied with in the page', async () => {
    const server = await model();
    const root = scratchDir();
    const home = scratchDir();
    const run = start(['run', 'write out.txt', '--inbox', '--base-url', server.url, '--log', join(home, 's.jsonl')], root, home);
    const inbox = api((await run.waitFor(urlLine))[1] as string);
    const waiting = await until('a waiting session', async () => (await inbox.sessions()).find((s) => s.waiting > 0), run.stdout);
    const res = await inbox.answer(waiting.id, 'call_write', { decision: 'deny', message: 'not in this repo, please' });
    expect(res.status).toBe(200);
    expect(await run.exited()).toBe(0);
    expect(run.stdout()).toMatch(/✘ bash \[call_write\] denied/);
    expect(existsSync(join(root, 'out.txt'))).toBe(false);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('not in this repo, please');
  });
});

describe('dsh inbox', () => {
  it('shows the sessions dsh run writes to ~/.dsh/sessions, live, until Ctrl-C', async () => {
    const server = await model();
    const root = scratchDir();
    const home = scratchDir();
    const inboxRun = start(['inbox'], root, home);
    const url = (await inboxRun.waitFor(urlLine))[1] as string;
    expect(inboxRun.stdout()).toContain(join(home, '.dsh', 'sessions'));
    const inbox = api(url);
    expect(await inbox.sessions()).toEqual([]);
    // dsh run writes its log where the inbox looks by default; without a terminal its approval is refused.
    const agent = await runDsh(['run', 'write out.txt', '--base-url', server.url], { cwd: root, home, env: { DEEPSEEK_API_KEY: 'k' } });
    expect(agent.code).toBe(0);
    const session = await until(
      'the finished session',
      async () => (await inbox.sessions()).find((s) => s.status !== 'running'),
      inboxRun.stdout,
    );
    const types = (await inbox.events(session.id)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['tool/call', 'approval/request', 'approval/answer', 'tool/result']));
    // A log-only session is answered where it runs, not here.
    const res = await inbox.answer(session.id, 'call_write', { decision: 'allow-once' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    inboxRun.child.kill('SIGINT');
    expect(await inboxRun.exited()).toBe(0);
    expect(inboxRun.stderr()).toBe('');
  });

  it('reads the folder --logs names', async () => {
    const root = scratchDir();
    const home = scratchDir();
    const logs = join(root, 'logs');
    const line = { seq: 1, at: new Date().toISOString(), session: 'from-a-folder', type: 'context/message', data: { text: 'hello' } };
    put(logs, 'from-a-folder.jsonl', `${JSON.stringify(line)}\n`);
    const inboxRun = start(['inbox', '--logs', 'logs'], root, home);
    const inbox = api((await inboxRun.waitFor(urlLine))[1] as string);
    const sessions = await until(
      'the session',
      async () => {
        const all = await inbox.sessions();
        return all.length > 0 ? all : undefined;
      },
      inboxRun.stdout,
    );
    expect(sessions.map((s) => s.id)).toEqual(['from-a-folder']);
    inboxRun.child.kill('SIGTERM');
    expect(await inboxRun.exited()).toBe(0);
  });

  it('refuses a port that is not a number, and a port already taken, as usage errors', async () => {
    const root = scratchDir();
    const bad = await runDsh(['inbox', '--port', 'eighty'], { cwd: root, home: root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('CLI_USAGE: inbox: --port must be a whole number from 0 to 65535, not "eighty"');
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    try {
      const port = String((taken.address() as { port: number }).port);
      const busy = await runDsh(['inbox', '--port', port], { cwd: root, home: root });
      expect(busy.code).toBe(2);
      expect(busy.stderr).toContain(`cannot serve the inbox on 127.0.0.1:${port}`);
    } finally {
      await new Promise<void>((done) => taken.close(() => done()));
    }
  });
});
