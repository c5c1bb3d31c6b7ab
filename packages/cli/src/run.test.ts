import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// The agent package's fake Chat Completions server: real HTTP on 127.0.0.1, checking every request it gets.
import type { FakeServer } from '../../agent/dist/testing/fake-http.js';
import { startOpenAIChatServer } from '../../agent/dist/testing/openai-chat-server.js';
import { dshInTerminal, terminalTestsRun, warnWithoutTmux } from './fixtures/dsh-terminal.js';
import { put, runDsh, scratchDir } from './fixtures/run-dsh.js';

warnWithoutTmux('run.test.ts');

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** The scripted model: asks for a command that needs approval, then answers. */
async function model(): Promise<FakeServer> {
  const server = await startOpenAIChatServer([
    {
      text: 'I will write the file.',
      calls: [{ id: 'call_write', name: 'bash', args: '{"command":"echo approved > out.txt"}' }],
    },
    { text: 'All done: out.txt is written.' },
  ]);
  servers.push(server);
  return server;
}

function project(): { root: string; home: string; log: string } {
  const root = scratchDir();
  const home = scratchDir();
  put(root, 'README.md', '# A project\n');
  return { root, home, log: join(home, 'session.jsonl') };
}

describe('dsh run', () => {
  it.runIf(terminalTestsRun)('asks for approval in a real terminal, runs the approved call and shows its card', async () => {
    const server = await model();
    const { root, home, log } = project();
    const args = ['run', 'write out.txt', '--base-url', server.url, '--log', log];
    const t = dshInTerminal({ root, home, args, env: { DEEPSEEK_API_KEY: 'test-key' } });
    try {
      // The question's own prompt: the terminal is read key by key from then on.
      const asked = await t.waitFor(/\[n\] no\n +>/);
      expect(asked).toContain('the agent wants to run bash: echo approved > out.txt');
      expect(existsSync(join(root, 'out.txt'))).toBe(false);
      // One key answers: no Enter.
      t.keys('y');
      expect(await t.exitCode()).toBe('0');
      const screen = t.screen();
      // The answer is echoed once, on the prompt's line, and the question is not printed again.
      expect(screen).toMatch(/\n {2}> yes, once\n/);
      expect(screen.split('wants to run').length - 1).toBe(1);
      expect(screen).toMatch(/✔ bash \[call_write\] ok/);
      expect(screen).toContain('All done: out.txt is written.');
      expect(screen).toContain('✔ done · 2 turns');
      expect(screen).toContain(`Session log: ${log}`);
    } finally {
      t.close();
    }
    expect(readFileSync(join(root, 'out.txt'), 'utf8')).toBe('approved\n');
    expect(server.problems).toEqual([]);
    // The log holds the conversation beside the calls, and dsh log reads it.
    const types = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toEqual(expect.arrayContaining(['agent/turn', 'tool/call', 'approval/request', 'approval/answer', 'tool/result']));
    const read = await runDsh(['log', log], { cwd: root, home });
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('echo approved > out.txt');
  });

  it('refuses approvals when stdin is not a terminal, with a reason the model reads, and finishes', async () => {
    const server = await model();
    const { root, home, log } = project();
    const run = await runDsh(['run', 'write out.txt', '--base-url', server.url, '--log', log], {
      cwd: root,
      home,
      env: { DEEPSEEK_API_KEY: 'test-key' },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('stdin is not a terminal: calls that need approval will be refused');
    expect(run.stdout).toMatch(/✘ bash \[call_write\] denied APPROVAL_REJECTED/);
    expect(run.stdout).toContain('no terminal to ask');
    expect(existsSync(join(root, 'out.txt'))).toBe(false);
    // The model was told why: the tool message of its call carries the refusal.
    const second = JSON.stringify(server.requests[1]?.body);
    expect(second).toContain('no terminal to ask');
    expect(server.problems).toEqual([]);
  });

  it('logs the task it was given first, so dsh log can say what the agent was asked', async () => {
    const server = await model();
    const { root, home, log } = project();
    const run = await runDsh(['run', 'write out.txt', 'please', '--base-url', server.url, '--log', log], {
      cwd: root,
      home,
      env: { DEEPSEEK_API_KEY: 'test-key' },
    });
    expect(run.code).toBe(0);
    const [first] = readFileSync(log, 'utf8').split('\n');
    expect(JSON.parse(first ?? '')).toMatchObject({
      type: 'run/task',
      data: { task: 'write out.txt please', provider: 'deepseek', model: 'deepseek-v4-flash', workspace: root },
    });
    const read = await runDsh(['log', log, '--no-color'], { cwd: root, home });
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('task (dsh run, deepseek deepseek-v4-flash): write out.txt please');
    expect(read.stdout).not.toContain('shows raw');
  });

  it('needs no API key for a server on this machine, and names the URL and the system error when it cannot be reached', async () => {
    const { root, home, log } = project();
    // A port nothing listens on: bound, then closed.
    const port = await new Promise<number>((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => done(port));
      });
    });
    const url = `http://127.0.0.1:${port}/v1`;
    const run = await runDsh(['run', 'anything', '--base-url', url, '--log', log], {
      cwd: root,
      home,
      env: { DEEPSEEK_API_KEY: '', OPENAI_API_KEY: '' },
    });
    expect(run.stderr).not.toContain('MODEL_UNAVAILABLE');
    expect(run.code).toBe(5);
    expect(run.stdout).toContain(`stopped: model-error (AGENT_MODEL_FAILED: cannot reach ${url}: connect ECONNREFUSED 127.0.0.1:${port})`);
  });

  it('says which variable to set when there is no API key, and checks its arguments', async () => {
    const { root, home } = project();
    const env = { DEEPSEEK_API_KEY: '', OPENAI_API_KEY: '' };
    const noKey = await runDsh(['run', 'anything'], { cwd: root, home, env });
    expect(noKey.code).toBe(3);
    expect(noKey.stderr).toContain('MODEL_UNAVAILABLE');
    expect(noKey.stderr).toContain('DEEPSEEK_API_KEY');
    const noModel = await runDsh(['run', 'anything', '--provider', 'openai'], { cwd: root, home, env: { OPENAI_API_KEY: 'k' } });
    expect(noModel.code).toBe(3);
    expect(noModel.stderr).toContain('model');
    const badProvider = await runDsh(['run', 'anything', '--provider', 'mistral'], { cwd: root, home, env });
    expect(badProvider.code).toBe(2);
    expect(badProvider.stderr).toContain('--provider must be one of deepseek, openai');
    const noTask = await runDsh(['run'], { cwd: root, home, env });
    expect(noTask.code).toBe(2);
    expect(noTask.stderr).toContain('what should the agent do?');
  });

  it('exits 5 when the agent stops before finishing: a failing model request', async () => {
    const server = await startOpenAIChatServer([]);
    servers.push(server);
    const { root, home, log } = project();
    const run = await runDsh(['run', 'anything', '--base-url', server.url, '--log', log], {
      cwd: root,
      home,
      env: { DEEPSEEK_API_KEY: 'test-key' },
    });
    expect(run.code).toBe(5);
    expect(run.stdout).toContain('stopped: model-error');
    expect(run.stdout).toContain(`Session log: ${log}`);
  });
});
