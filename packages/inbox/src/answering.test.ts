import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventSeen, liveSession } from './fixtures/live-session.js';
import { createInbox, type Inbox } from './inbox.js';

type Problem = { error: { code: string; message: string } };

let inbox: Inbox;
let base: string;
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: base, Cookie: `dsh-inbox-${new URL(base).port}=${inbox.token}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

beforeEach(async () => {
  inbox = createInbox();
  base = new URL(await inbox.listen()).origin;
});
afterEach(() => inbox.close());

describe('answering an approval', () => {
  it('lets the first answer run the call and records who gave it on the call', async () => {
    const host = await liveSession(inbox, 's1');
    const step = host.runStep({ calls: [{ id: 'c1', name: 'shell', args: { command: 'ls' } }] });
    await eventSeen(host, (type) => type === 'approval/request');
    const first = await post('/api/sessions/s1/calls/c1/answer', { decision: 'allow-once' });
    expect(first.status).toBe(200);
    const { results } = await step;
    expect(results[0]?.outcome).toMatchObject({ status: 'ok', output: 'ran: ls' });
    const recorded = host.events.list().find((e) => e.type === ('inbox/answer' as never));
    expect(recorded?.call).toBe('c1');
    expect(recorded?.data).toMatchObject({ decision: 'allow-once', by: 'token holder' });
    expect(String((recorded?.data as unknown as { from: string } | undefined)?.from)).toContain('127.0.0.1');
    const second = await post('/api/sessions/s1/calls/c1/answer', { decision: 'deny' });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { code: 'INBOX_ALREADY_ANSWERED', answer: { decision: 'allow-once' } } });
  });

  it('gives the model the deny message', async () => {
    const host = await liveSession(inbox, 's2');
    const step = host.runStep({ calls: [{ id: 'c1', name: 'shell', args: { command: 'rm -rf /' } }] });
    await eventSeen(host, (type) => type === 'approval/request');
    expect((await post('/api/sessions/s2/calls/c1/answer', { decision: 'deny', message: 'use trash instead' })).status).toBe(200);
    const { results } = await step;
    expect(results[0]?.outcome).toMatchObject({ status: 'denied', code: 'APPROVAL_REJECTED' });
    expect(JSON.stringify(results[0]?.outcome)).toContain('use trash instead');
  });

  it('refuses wrong session and call ids with their codes', async () => {
    const host = await liveSession(inbox, 's3');
    const step = host.runStep({ calls: [{ id: 'c1', name: 'shell', args: { command: 'ls' } }] });
    await eventSeen(host, (type) => type === 'approval/request');
    const noSession = await post('/api/sessions/nope/calls/c1/answer', { decision: 'allow-once' });
    expect([noSession.status, ((await noSession.json()) as Problem).error.code]).toEqual([404, 'INBOX_UNKNOWN_SESSION']);
    const noCall = await post('/api/sessions/s3/calls/zz/answer', { decision: 'allow-once' });
    expect([noCall.status, ((await noCall.json()) as Problem).error.code]).toEqual([404, 'INBOX_UNKNOWN_CALL']);
    const bad = await post('/api/sessions/s3/calls/c1/answer', { decision: 'maybe' });
    expect([bad.status, ((await bad.json()) as Problem).error.code]).toEqual([400, 'INBOX_BAD_REQUEST']);
    await post('/api/sessions/s3/calls/c1/answer', { decision: 'allow-once' });
    await step;
  });

  it('refuses an answer for a call whose approval timed out, saying so', async () => {
    const host = await liveSession(inbox, 's4', { approvalTimeoutMs: 50 });
    const { results } = await host.runStep({ calls: [{ id: 'c1', name: 'shell', args: { command: 'ls' } }] });
    expect(results[0]?.outcome).toMatchObject({ status: 'denied', code: 'APPROVAL_TIMEOUT' });
    const late = await post('/api/sessions/s4/calls/c1/answer', { decision: 'allow-once' });
    expect(late.status).toBe(410);
    expect(await late.json()).toMatchObject({ error: { code: 'INBOX_NOT_WAITING', message: expect.stringContaining('timed out') } });
  });

  it('refuses remembering a call when no grant was offered (no permissions plugin asked)', async () => {
    const host = await liveSession(inbox, 's5');
    const step = host.runStep({ calls: [{ id: 'c1', name: 'shell', args: { command: 'ls' } }] });
    await eventSeen(host, (type) => type === 'approval/request');
    const always = await post('/api/sessions/s5/calls/c1/answer', { decision: 'allow-always', scope: 'project' });
    expect([always.status, ((await always.json()) as Problem).error.code]).toEqual([400, 'INBOX_CANNOT_REMEMBER']);
    expect((await post('/api/sessions/s5/calls/c1/answer', { decision: 'allow-once' })).status).toBe(200);
    expect((await step).results[0]?.outcome.status).toBe('ok');
  });

  it('answers unavailable for a host it does not watch', async () => {
    const { createHost, defineTool, z } = await import('@deepseek-ai/dsh-core');
    const host = createHost({ approval: inbox.approval });
    host.tools.register(defineTool({ name: 't', description: 't', input: z.object({}), execute: () => 1 }));
    const { results } = await host.runStep({ calls: [{ id: 'c1', name: 't', args: {} }] });
    expect(results[0]?.outcome).toMatchObject({ status: 'denied', code: 'APPROVAL_UNAVAILABLE' });
  });
});
