import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool, type Plugin, z } from '@deepseek-ai/dsh-core';
import { createTestHost, logProblems } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { timeoutPolicy } from './index.js';

/** Live (not zombie) processes in process group `pgid`, read from /proc. */
function liveInGroup(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces, so split after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') pids.push(Number(entry));
  }
  return pids;
}

/** Waits until `check` is true, polling; the test's own timeout bounds it. */
async function eventually(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * A real slow tool, as a shell tool is built: a detached bash whose two
 * sleeps form a process tree; on abort it kills the whole process group.
 */
function sleepTree(groups: number[]): Plugin {
  const tool = defineTool({
    name: 'sleep_tree',
    description: 'runs two sleeps under bash',
    input: z.object({}),
    execute: (_args, ctx) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn('bash', ['-c', 'sleep 30 & sleep 30; wait'], { detached: true, stdio: 'ignore' });
        const pgid = child.pid as number;
        groups.push(pgid);
        const kill = (): void => {
          try {
            process.kill(-pgid, 'SIGKILL');
          } catch {
            // The group is already gone.
          }
        };
        ctx.signal.addEventListener('abort', kill, { once: true });
        // On a loaded machine the deadline may pass before execute runs: the signal is then
        // aborted already and its event will not fire again.
        if (ctx.signal.aborted) kill();
        child.on('error', reject);
        child.on('exit', (code, signal) => {
          ctx.signal.removeEventListener('abort', kill);
          if (ctx.signal.aborted) reject(ctx.signal.reason);
          else resolve(`exited ${code ?? signal}`);
        });
      }),
  });
  return { name: 'sleep-tree', version: '0.0.0', register: (host) => void host.tools.register(tool) };
}

describe('timeoutPolicy with a real process tree', () => {
  it('kills a bash sleep tree at the deadline and leaves no process of it running', async () => {
    const groups: number[] = [];
    const t = await createTestHost({ plugins: [timeoutPolicy({ defaultMs: 300, graceMs: 5_000 }), sleepTree(groups)] });
    const outcome = await t.call('sleep_tree');
    expect(outcome).toMatchObject({
      status: 'error',
      by: 'timeout-policy',
      error: { code: 'TOOL_TIMEOUT', data: { deadlineMs: 300, settled: 'within-grace' } },
    });
    const pgid = groups[0] as number;
    expect(pgid).toBeGreaterThan(0);
    await eventually(() => liveInGroup(pgid).length === 0);
    expect(liveInGroup(pgid)).toEqual([]);
    expect(logProblems(t.host.events.list())).toEqual([]);
  });

  it('kills the tree when the user cancels the step', async () => {
    const groups: number[] = [];
    const t = await createTestHost({ plugins: [timeoutPolicy({ defaultMs: 60_000, graceMs: 5_000 }), sleepTree(groups)] });
    const controller = new AbortController();
    const step = t.host.runStep({ calls: [{ id: 'c', name: 'sleep_tree', args: {} }] }, { signal: controller.signal });
    await eventually(() => groups.length === 1 && liveInGroup(groups[0] as number).length >= 2);
    controller.abort();
    const { results } = await step;
    expect(results[0]?.outcome).toMatchObject({ status: 'error', error: { code: 'ABORTED', data: { cause: 'cancelled' } } });
    await eventually(() => liveInGroup(groups[0] as number).length === 0);
  });
});

// tool-bash is written alongside this package; its test runs once it exports `toolBash`.
const bashModule: Record<string, unknown> = await import('@deepseek-ai/dsh-tool-bash').catch(() => ({}));
const toolBash = bashModule.toolBash as ((options?: Record<string, unknown>) => Plugin) | undefined;

describe('timeoutPolicy with tool-bash', () => {
  it.skipIf(toolBash === undefined)(
    "kills bash's sleep tree at the deadline and leaves no sleep running",
    async () => {
      // On a loaded machine bash may not have started the tree by a short deadline, so the
      // deadline grows until the command reports (a file in its workspace) that every sleep was
      // started before the timeout fired; then no process of the tree may be left. Decided by
      // events, not speed. The sleeps outlast every deadline tried.
      const dir = mkdtempSync(join(tmpdir(), 'dsh-timeout-tree-'));
      try {
        for (let deadline = 500; ; deadline *= 4) {
          const marker = `90.${process.pid}${deadline}`;
          const started = `started-${deadline}`;
          const bash = (toolBash as (options: { cwd: string }) => Plugin)({ cwd: dir });
          const t = await createTestHost({ plugins: [timeoutPolicy({ tools: { bash: deadline }, graceMs: 5_000 }), bash] });
          const command = `sleep ${marker}1 & sleep ${marker}2 & bash -c 'sleep ${marker}3; true' & touch ${started}; wait`;
          const outcome = await t.call('bash', { command });
          expect(outcome).toMatchObject({ status: 'error', by: 'timeout-policy', error: { code: 'TOOL_TIMEOUT' } });
          await eventually(() => sleepersWith(marker).length === 0);
          if (existsSync(join(dir, started)) || deadline > 30_000) {
            expect(existsSync(join(dir, started)), 'bash never started the tree, even with a 32 s deadline').toBe(true);
            break;
          }
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );
});

/** Live processes whose command line mentions `marker`. */
function sleepersWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
        const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
        return state !== 'Z' && readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}
