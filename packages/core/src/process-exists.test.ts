import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { processExists } from './process-exists.js';

const parents: number[] = [];
afterEach(() => {
  for (const pid of parents.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

function state(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

describe('processExists', () => {
  it('is true for a running process and false for one that is gone', async () => {
    expect(processExists(process.pid)).toBe(true);
    const child = spawn('true');
    await once(child, 'exit');
    expect(processExists(child.pid as number)).toBe(false);
  });

  it('is false for what names no single process: 0, negative pids, NaN, fractions', () => {
    // kill(0, 0) and kill(-1, 0) succeed (they address a group), which once made an empty pid file read as a live process.
    expect(() => process.kill(0, 0)).not.toThrow();
    for (const pid of [0, -1, -process.pid, Number.NaN, Number(''), 1.5]) expect(processExists(pid)).toBe(false);
  });

  it('is false for a zombie, which still answers kill(pid, 0)', async () => {
    // The parent starts a child that exits at once, then blocks its event loop, so libuv never reaps the child.
    const script =
      "const child = require('node:child_process').spawn('true');" +
      "require('node:fs').writeSync(1, child.pid + '\\n');" +
      'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600000);';
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    parents.push(parent.pid as number);
    const [line] = (await once(parent.stdout, 'data')) as [Buffer];
    const zombie = Number(line.toString().trim());
    // A hang bound only (the parent blocks for 10 minutes and is killed after the test): `true` exits at once.
    for (let i = 0; i < 6000 && state(zombie) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(state(zombie)).toBe('Z');
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(processExists(zombie)).toBe(false);
  });
});
