import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Host } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import type { ScriptedTurn } from './fake-http.js';

/** A real 1x1 PNG, base64: the image the media tests read and send. */
export const pngBase64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';

/** The start of a PDF, base64: the file part the media tests send. */
export const pdfBase64 = Buffer.from('%PDF-1.4\n%test\n').toString('base64');

/** A temp workspace with `a.txt`, `b.txt` and `dot.png`, a real host with tool-fs on it, and a guard that denies writing `secret.txt`. */
export interface Workspace {
  readonly dir: string;
  readonly host: Host;
  cleanup(): Promise<void>;
}

/** Builds the workspace every adapter test runs its scripted session in. */
export async function workspace(): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-agent-'));
  await writeFile(join(dir, 'a.txt'), 'alpha\n');
  await writeFile(join(dir, 'b.txt'), 'beta\n');
  await writeFile(join(dir, 'dot.png'), Buffer.from(pngBase64, 'base64'));
  const { host } = await createTestHost({ plugins: [toolFs({ roots: [dir], cwd: dir })] });
  host.guards.register({
    id: 'test/no-secret',
    check: ({ args }) => (String(args.file_path ?? '').endsWith('secret.txt') ? { deny: 'secret.txt is off limits' } : 'abstain'),
  });
  return { dir, host, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The standard session: two parallel reads (with reasoning); then a write, a
 * denied write, a read with malformed argument JSON and an unknown tool in
 * one turn (with reasoning); then the final answer.
 */
export function standardScript(): ScriptedTurn[] {
  return [
    {
      text: 'I will read both files.',
      reasoning: 'Read a and b first.',
      calls: [
        { name: 'read', args: '{"file_path":"a.txt"}' },
        { name: 'read', args: '{"file_path":"b.txt"}' },
      ],
    },
    {
      reasoning: 'Now write c, try the secret, and two broken calls.',
      calls: [
        { name: 'write', args: '{"file_path":"c.txt","content":"alpha beta\\n"}' },
        { name: 'write', args: '{"file_path":"secret.txt","content":"x"}' },
        { name: 'read', args: '{"file_path": "a.txt"' },
        { name: 'teleport', args: '{"to":"mars"}' },
      ],
    },
    { text: 'Wrote c.txt; secret.txt was refused.' },
  ];
}

/** A ten-turn task: nine turns that each write one file, then the answer. */
export function tenTurnScript(): ScriptedTurn[] {
  const turns: ScriptedTurn[] = [];
  for (let n = 0; n < 9; n++) {
    turns.push({ reasoning: `step ${n}`, calls: [{ name: 'write', args: JSON.stringify({ file_path: `f${n}.txt`, content: `${n}\n` }) }] });
  }
  turns.push({ text: 'All nine files written.' });
  return turns;
}
