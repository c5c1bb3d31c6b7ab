import type { TestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, eventsOf, hostFor, ran, tempProject } from './fixtures/kit.js';

afterEach(() => {
  cleanupAll();
  ran.length = 0;
});

function gemini(event: string, matcher: string, hooks: Record<string, unknown>[]) {
  const p = tempProject();
  p.write(
    '.gemini/settings.json',
    `{\n  // Gemini settings may carry comments\n  "hooks": ${JSON.stringify({ [event]: [{ matcher, hooks }] })}\n}\n`,
  );
  return p;
}

/** Each hook ran to its end: a failure here shows its `hook/result`, and why it hung if it timed out. */
function expectHooksFinished(t: TestHost): void {
  for (const { data } of eventsOf(t, 'hook/result')) expect(data, JSON.stringify(data)).toMatchObject({ timedOut: false });
}

describe('Gemini CLI hooks', () => {
  it('feeds BeforeTool its payload under Gemini tool names and GEMINI_PROJECT_DIR', async () => {
    const p = gemini('BeforeTool', 'run_shell_command', [{ type: 'command', command: 'cat > "$GEMINI_PROJECT_DIR/payload.json"' }]);
    const t = await hostFor(p);
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    const payload = JSON.parse(p.read('payload.json'));
    expect(payload).toMatchObject({
      session_id: t.host.session,
      transcript_path: null,
      cwd: p.dir,
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'ls' },
    });
    expect(Number.isNaN(Date.parse(payload.timestamp))).toBe(false);
  });

  it('denies on decision "deny" and on exit 2 with stderr', async () => {
    const t = await hostFor(
      gemini('BeforeTool', '.*shell.*', [{ type: 'command', command: `echo '{"decision":"deny","reason":"gemini says no"}'` }]),
    );
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'gemini says no' });
    const t2 = await hostFor(
      gemini('BeforeTool', 'run_shell_command', [{ type: 'command', command: 'echo "blocked by exit 2" >&2; exit 2' }]),
    );
    expect(await t2.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'blocked by exit 2' });
  });

  it('merges hookSpecificOutput.tool_input over the arguments', async () => {
    const p = gemini('BeforeTool', 'read_file', [
      { type: 'command', command: `echo '{"hookSpecificOutput":{"tool_input":{"file_path":"'"$GEMINI_PROJECT_DIR"'/b.txt"}}}'` },
    ]);
    p.write('b.txt', 'bee');
    const t = await hostFor(p);
    expect(await t.call('read', { path: 'a.txt' })).toMatchObject({ status: 'ok', output: 'bee' });
  });

  it('reads the timeout in milliseconds', async () => {
    const t = await hostFor(gemini('BeforeTool', '', [{ type: 'command', command: 'exec sleep 30', timeout: 300 }]));
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    const result = eventsOf(t, 'hook/result')[0]?.data;
    expect(result).toMatchObject({ timedOut: true, errorCode: 'HOOK_TIMEOUT' });
    // What the hook's process was doing when time ran out: `sleeping in hrtimer_nanosleep` here, but a loaded machine may not have run it yet.
    expect(result?.error).toMatch(/^hook did not finish within 300 ms \(its process was [a-z][^)]*\); its process group was killed$/);
  });

  it('hides the output of AfterTool deny and adds its additionalContext', async () => {
    const t = await hostFor(
      gemini('AfterTool', 'run_shell_command', [{ type: 'command', command: `echo '{"decision":"deny","reason":"output hidden"}'` }]),
    );
    const outcome = await t.call('bash', { command: 'env' });
    expectHooksFinished(t);
    expect(outcome).toMatchObject({ status: 'blocked', reason: 'output hidden' });
    const t2 = await hostFor(
      gemini('AfterTool', 'run_shell_command', [
        { type: 'command', command: `jq -c '{hookSpecificOutput: {additionalContext: ("saw " + .tool_response.llmContent)}}'` },
      ]),
    );
    const { context } = await t2.host.runStep({ calls: [{ id: 'g1', name: 'bash', args: { command: 'ls' } }] });
    expect(context?.text).toBe('saw {"stdout":"ran: ls","exitCode":0}');
  });

  it('does not let a Gemini allow approve a call: it runs after confirmation in Gemini', async () => {
    const t = await hostFor(
      gemini('BeforeTool', '', [{ type: 'command', command: `echo '{"decision":"allow"}'` }]),
      {},
      { defaultDecision: 'ask' },
    );
    const outcome = await t.call('bash', { command: 'ls' });
    expectHooksFinished(t);
    expect(outcome).toMatchObject({ status: 'denied', code: 'APPROVAL_UNAVAILABLE' });
  });

  it('skips Gemini hooks when hooksConfig.enabled is false', async () => {
    const p = tempProject();
    p.settings('.gemini/settings.json', {
      hooksConfig: { enabled: false },
      hooks: { BeforeTool: [{ hooks: [{ type: 'command', command: 'exit 2' }] }] },
    });
    const t = await hostFor(p);
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
  });
});
