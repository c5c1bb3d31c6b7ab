import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { toolBash } from './plugin.js';

/* Issue 38 item 18: the host owns the session's working directory; bash takes it unless told otherwise. */

const ws = workspace();
const other = join(ws, 'other');
mkdirSync(other);
const { env } = trackProcesses();

describe("bash's working directory", () => {
  it("is the host's working directory when the options name none", async () => {
    const t = await createTestHost({ cwd: ws, plugins: [toolBash({ sandbox: { provider: 'none' }, env: { set: env } })] });
    const out = okOutput(await t.call('bash', { command: 'pwd' }));
    expect(out.stdout.trim()).toBe(ws);
    expect(out.cwd).toBe(ws);
  });

  it("is the option's cwd when given, whatever the host's is", async () => {
    const t = await createTestHost({ cwd: ws, plugins: [toolBash({ cwd: other, sandbox: { provider: 'none' }, env: { set: env } })] });
    expect(okOutput(await t.call('bash', { command: 'pwd' })).stdout.trim()).toBe(other);
  });

  it("lets a cd lead anywhere under the host's working directory, the default root", async () => {
    const t = await createTestHost({ cwd: ws, plugins: [toolBash({ sandbox: { provider: 'none' }, env: { set: env } })] });
    okOutput(await t.call('bash', { command: 'cd other' }));
    expect(okOutput(await t.call('bash', { command: 'pwd' })).stdout.trim()).toBe(other);
  });

  it("refuses to register, naming it, when the host's working directory does not exist", async () => {
    const missing = join(ws, 'missing');
    await expect(
      createTestHost({ cwd: missing, plugins: [toolBash({ sandbox: { provider: 'none' }, env: { set: env } })] }),
    ).rejects.toThrow(`toolBash: the host's working directory: ${missing} is not an existing directory`);
  });
});
