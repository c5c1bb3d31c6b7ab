import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashHosts, errorOf, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { OutputCapture } from './internal/output-capture.js';
import { TextWindow } from './internal/text-window.js';
import type { OutputProgress } from './result.js';

const ws = workspace();
const outputDir = join(ws, '.bash-output');
const { env, mark, marked } = trackProcesses();

const host = bashHosts({ cwd: ws, outputDir, killGraceMs: 200, sandbox: { provider: 'none' } }, env);

const seq = (n: number): string => Array.from({ length: n }, (_, i) => `${i + 1}\n`).join('');

describe('output capture', () => {
  it('keeps a character split across two pipe reads whole', async () => {
    const t = await host();
    // 65 535 bytes then a 3-byte character: the pipe hands it over in pieces across the 64 KiB boundary.
    const out = okOutput(await t.call('bash', { command: `head -c 65535 /dev/zero | tr '\\0' a; printf '€ü✓'` }));
    expect(out.stdout.endsWith('a€ü✓')).toBe(true);
    expect(out.stdout).not.toContain('\uFFFD');
    expect(out.bytes.stdout).toBe(65535 + 3 + 2 + 3);
  });

  it('decodes split characters in whatever pieces they arrive (every split point)', async () => {
    const text = 'x€😀y';
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const capture = new OutputCapture({ maxChars: 100, maxBytes: 1000, fullOutputPath: () => '/nonexistent/never' });
      capture.push('stdout', bytes.subarray(0, cut));
      capture.push('stdout', bytes.subarray(cut));
      expect((await capture.finish()).stdout).toBe(text);
    }
  });

  it('shows invalid UTF-8 as replacement characters instead of failing', async () => {
    const t = await host();
    const out = okOutput(await t.call('bash', { command: `printf 'ok\\xff\\xfeend\\n'` }));
    expect(out.stdout).toBe('ok\uFFFD\uFFFDend\n');
    expect(out.bytes.stdout).toBe(8);
  });

  it('keeps head and tail of long output with a marker, and saves every byte to the file it names', async () => {
    const t = await host({ maxOutputChars: 1_000 });
    const out = okOutput(await t.call('bash', { command: 'seq 1 20000' }));
    const full = seq(20000);
    expect(out.truncated).toBe(true);
    expect(out.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(out.stdout.endsWith('19999\n20000\n')).toBe(true);
    expect(out.output).toMatch(/characters omitted; the full output is in /);
    expect(out.fullOutputPath).toBeDefined();
    const path = out.fullOutputPath as string;
    expect(out.output).toContain(path);
    expect(readFileSync(path, 'utf8')).toBe(full);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Head and tail hold exactly the budget: everything else is counted in the marker.
    const omitted = Number(/(\d+) characters omitted/.exec(out.output)?.[1]);
    const marker = /\n\n… \[.*\] …\n\n/.exec(out.output)?.[0] ?? '';
    expect(out.output.length - marker.length).toBe(1_000);
    expect(omitted + 1_000).toBe(full.length);
  });

  it('saves no file when the output fits, even when its bytes did not', async () => {
    const t = await host({ maxOutputChars: 200 });
    // 150 characters, 450 bytes: over the cap in bytes, under it in characters.
    const out = okOutput(await t.call('bash', { command: `printf '€%.0s' $(seq 1 150)` }));
    expect(out).toMatchObject({ truncated: false, bytes: { stdout: 450 } });
    expect(out.stdout).toBe('€'.repeat(150));
    expect(out.fullOutputPath).toBeUndefined();
  });

  it('never splits a surrogate pair at the head or tail cut', () => {
    for (let limit = 100; limit < 106; limit += 1) {
      const window = new TextWindow(limit);
      window.append('😀'.repeat(200));
      const { text } = window.render(() => '|');
      for (const part of text.split('|')) expect(/^(?:😀)*$/u.test(part), `limit ${limit}: ${part.length}`).toBe(true);
    }
  });

  it('kills a command that floods output past the hard byte cap, keeping memory and the file bounded', async () => {
    const t = await host({ maxOutputBytes: 2 * 1024 * 1024, maxOutputChars: 1_000 });
    const m = mark();
    const error = errorOf(await t.call('bash', { command: marked(m, 'yes flood') }));
    expect(error.code).toBe('OUTPUT_LIMIT_EXCEEDED');
    expect(error.data).toMatchObject({ stoppedBy: 'output-limit', truncated: true, bytes: { stdout: 2 * 1024 * 1024, stderr: 0 } });
    expect(error.data?.stdout.startsWith('flood\nflood\n')).toBe(true);
    expect(statSync(error.data?.fullOutputPath as string).size).toBe(2 * 1024 * 1024);
  });

  it('streams live output as progress updates while the command still runs', async () => {
    const t = await host();
    const flag = join(ws, 'progress-flag');
    const m = mark();
    const running = t.call('bash', {
      command: marked(m, `echo first; while [ ! -e ${flag} ]; do sleep 0.02; done; echo second >&2`),
    });
    // The command cannot finish until the test has seen its first line as progress.
    while (!t.ui.progressUpdates.some((p) => (p.update as OutputProgress).text === 'first\n')) {
      await new Promise((r) => setTimeout(r, 10));
    }
    writeFileSync(flag, '');
    const out = okOutput(await running);
    expect(out.output).toBe('first\nsecond\n');
    const updates = t.ui.progressUpdates.map((p) => p.update as OutputProgress);
    expect(updates).toEqual([
      { type: 'output', stream: 'stdout', text: 'first\n' },
      { type: 'output', stream: 'stderr', text: 'second\n' },
    ]);
  });

  it('samples a flood in its progress updates instead of forwarding all of it', async () => {
    const t = await host({ maxOutputBytes: 4 * 1024 * 1024, progressMaxChars: 256 });
    await t.call('bash', { command: marked(mark(), 'yes sample') });
    const updates = t.ui.progressUpdates.map((p) => p.update as OutputProgress);
    expect(updates.length).toBeGreaterThan(0);
    for (const update of updates) expect(update.text.length).toBeLessThanOrEqual(256);
    const shown = updates.reduce((n, u) => n + u.text.length + (u.skipped ?? 0), 0);
    expect(shown).toBe(4 * 1024 * 1024);
  });

  it('reports the spill file failure instead of losing the result when the output directory cannot be made', async () => {
    writeFileSync(join(ws, 'not-a-dir'), '');
    const t = await host({ maxOutputChars: 100, outputDir: join(ws, 'not-a-dir', 'sub') });
    const out = okOutput(await t.call('bash', { command: 'seq 1 1000' }));
    expect(out.truncated).toBe(true);
    expect(out.fullOutputPath).toBeUndefined();
    expect(out.fullOutputError).toMatch(/ENOTDIR/);
    expect(out.output).toMatch(/the full output could not be saved/);
    expect(existsSync(join(ws, 'not-a-dir', 'sub'))).toBe(false);
  });
});
