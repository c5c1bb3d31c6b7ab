import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { toolBash } from './plugin.js';

const ws = workspace();
const { env } = trackProcesses();

async function host() {
  return createTestHost({ plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: { provider: 'none' } })] });
}

describe("the bash tool in other agents' vocabularies", () => {
  it('is found under each dialect name', async () => {
    const t = await host();
    for (const [dialect, name] of [
      ['claude', 'Bash'],
      ['gemini', 'run_shell_command'],
      ['copilot', 'bash'],
      ['codex', 'Bash'],
    ] as const) {
      expect(t.host.tools.findExternal(dialect, name)?.name, dialect).toBe('bash');
    }
    expect(t.host.tools.findExternal('claude', 'Shell')).toBeUndefined();
  });

  it("maps Claude Code's Bash input both ways, dropping what we do not support", async () => {
    const claude = (await host()).host.tools.get('bash')?.external?.claude;
    expect(claude?.fromExternal({ command: 'ls', timeout: 5000, description: 'list', run_in_background: true })).toEqual({
      command: 'ls',
      timeout: 5000,
      description: 'list',
    });
    expect(claude?.toExternal({ command: 'ls' })).toEqual({ command: 'ls' });
    expect(claude?.toExternal({ command: 'ls', timeout: 10, description: 'd' })).toEqual({ command: 'ls', timeout: 10, description: 'd' });
  });

  it("runs a Gemini call with dir_path in that directory without moving the session's directory", async () => {
    mkdirSync(join(ws, "it's here"), { recursive: true });
    const t = await host();
    const gemini = t.host.tools.get('bash')?.external?.gemini;
    const args = gemini?.fromExternal({ command: 'pwd\n# a trailing comment', dir_path: "it's here", description: 'where' }) ?? {};
    expect(args.description).toBe('where');
    const out = okOutput(await t.call('bash', args));
    expect(out.stdout).toBe(`${join(ws, "it's here")}\n`);
    expect(out.cwd).toBe(ws);
    expect(gemini?.fromExternal({ command: 'true', directory: 'old-name' }).command).toContain("cd -- 'old-name'");
    expect(gemini?.toExternal({ command: 'ls', timeout: 5, description: 'd' })).toEqual({ command: 'ls', description: 'd' });
  });

  it("maps Copilot's bash and Codex's argv commands", async () => {
    const t = await host();
    const tool = t.host.tools.get('bash');
    expect(tool?.external?.copilot?.fromExternal({ command: 'ls', description: 'd' })).toEqual({ command: 'ls', description: 'd' });
    const codex = tool?.external?.codex;
    expect(codex?.fromExternal({ command: ['bash', '-lc', 'echo "$((1+1))"'], timeout_ms: 2000 })).toEqual({
      command: 'echo "$((1+1))"',
      timeout: 2000,
    });
    const argv = codex?.fromExternal({ command: ['printf', '%s\\n', "it's"] }) ?? {};
    expect(okOutput(await t.call('bash', argv)).stdout).toBe("it's\n");
    expect(codex?.toExternal({ command: 'ls', timeout: 3 })).toEqual({ command: 'ls', timeout_ms: 3 });
  });
});

describe('what the model is told', () => {
  it('is a strict JSON Schema with the command, timeout and description, and a description free of machine paths', async () => {
    const t = await host();
    const schema = t.host.tools.schemas().find((s) => s.name === 'bash');
    expect(schema?.inputSchema).toMatchObject({
      type: 'object',
      required: ['command'],
      additionalProperties: false,
      properties: { command: { type: 'string', maxLength: 100000 }, timeout: { type: 'integer' }, description: { type: 'string' } },
    });
    expect(schema?.description).toMatch(/working directory carries over/);
    expect(schema?.description).not.toContain(ws);
  });
});
