import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnswerDelivery, AnswerTarget } from './answer-target.js';
import { InboxErrorCode } from './errors.js';
import { createInbox, type Inbox } from './inbox.js';

const line = (seq: number, session: string, type: string, data: unknown, call?: string) =>
  `${JSON.stringify({ seq, at: new Date(0).toISOString(), session, type, ...(call ? { call, token: 't' } : {}), data })}\n`;

/** A session log as a durable worker leaves it between attempts: the call asks, no writer holds the lock. */
const asking = (session: string, call: string) =>
  line(1, session, 'tool/call', { name: 'bash', args: { command: 'make deploy' } }, call) +
  line(2, session, 'approval/request', { name: 'bash', args: { command: 'make deploy' }, by: 'ask-marked' }, call);

/** An engine's answer store: the first answer per call is kept, later ones are told so (as Restate's and DBOS's approve do). */
class FirstAnswerEngine implements AnswerTarget {
  readonly label = 'the test engine';
  readonly kept = new Map<string, string>();
  deliver(session: string, call: string, decision: 'allow' | 'deny', message: string | undefined): Promise<AnswerDelivery> {
    const key = `${session} ${call}`;
    if (this.kept.has(key)) return Promise.resolve({ status: 'already-answered' });
    this.kept.set(key, `${decision}${message === undefined ? '' : ` ${message}`}`);
    return Promise.resolve({ status: 'kept' });
  }
}

let dir: string;
let inbox: Inbox;
let engine: FirstAnswerEngine;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inbox-durable-'));
  engine = new FirstAnswerEngine();
  inbox = createInbox();
});

afterEach(async () => {
  await inbox.close();
  await rm(dir, { recursive: true, force: true });
});

async function watch(): Promise<void> {
  await inbox.watchLogs(dir, { source: 'restate', answers: engine });
}

describe('a folder of durable sessions with an answer target', () => {
  it('shows a session that asks as waiting without a writer, and hands the first answer to the engine', async () => {
    await writeFile(join(dir, 's1.jsonl'), asking('s1', 'c1'));
    await watch();
    const url = await inbox.listen();
    const res = await fetch(new URL('/api/sessions', url), { headers: { Authorization: `Bearer ${inbox.token}` } });
    const { sessions } = (await res.json()) as { sessions: { id: string; source: string; status: string; waiting: number }[] };
    expect(sessions).toMatchObject([{ id: 's1', source: 'restate', status: 'waiting', waiting: 1 }]);

    const first = await inbox.answer('s1', 'c1', { decision: 'deny', message: 'not on a Friday' }, { by: 'ana', from: 'test' });
    expect(first).toMatchObject({ status: 'answered', answer: { decision: 'deny', by: 'ana' } });
    expect(engine.kept.get('s1 c1')).toBe('deny not on a Friday');
    await expect(inbox.answer('s1', 'c1', { decision: 'allow-once' })).rejects.toMatchObject({
      code: InboxErrorCode.ALREADY_ANSWERED,
      data: { answer: { decision: 'deny', by: 'ana' } },
    });
    expect(engine.kept.size).toBe(1);
  });

  it('refuses allow-always (an engine keeps no grant) before anything reaches the engine', async () => {
    await writeFile(join(dir, 's2.jsonl'), asking('s2', 'c1'));
    await watch();
    await expect(inbox.answer('s2', 'c1', { decision: 'allow-always', scope: 'session' })).rejects.toMatchObject({
      code: InboxErrorCode.CANNOT_REMEMBER,
    });
    expect(engine.kept.size).toBe(0);
    await expect(inbox.answer('s2', 'c1', { decision: 'allow-once' })).resolves.toMatchObject({ status: 'answered' });
  });

  it('refuses an answer the engine already had from elsewhere, and one for a call that no longer asks', async () => {
    await writeFile(join(dir, 's3.jsonl'), asking('s3', 'c1'));
    await watch();
    await engine.deliver('s3', 'c1', 'allow', undefined); // `dsh approve s3 c1 allow`, before the page
    await expect(inbox.answer('s3', 'c1', { decision: 'deny' })).rejects.toMatchObject({
      code: InboxErrorCode.ALREADY_ANSWERED,
      status: 409,
      message: expect.stringContaining('the test engine keeps the first answer'),
    });

    await writeFile(
      join(dir, 's4.jsonl'),
      line(1, 's4', 'tool/call', { name: 'bash', args: { command: 'ls' } }, 'c1') +
        line(2, 's4', 'tool/result', { name: 'bash', outcome: { status: 'ok', output: '' } }, 'c1'),
    );
    await watch();
    await expect(inbox.answer('s4', 'c1', { decision: 'allow-once' })).rejects.toMatchObject({ code: InboxErrorCode.NOT_WAITING });
    expect(engine.kept.has('s4 c1')).toBe(false);
  });
});
