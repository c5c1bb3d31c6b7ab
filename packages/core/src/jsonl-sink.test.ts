import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AnySessionEvent, jsonlSink } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempLog(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-sink-'));
  dirs.push(dir);
  const path = join(dir, 'session.jsonl');
  await writeFile(path, text);
  return path;
}

const event = (seq: number): AnySessionEvent => ({
  seq,
  at: '2026-12-05T10:00:00.000Z',
  session: 's1',
  type: 'context/message',
  data: { text: `event ${seq}`, parts: [] },
});
const lines = (...seqs: number[]) => seqs.map((seq) => `${JSON.stringify(event(seq))}\n`).join('');

async function refusal(promise: Promise<void> | void): Promise<unknown> {
  return Promise.resolve(promise).then(
    () => 'written',
    (error: unknown) => error,
  );
}

describe('the JSONL sink never writes a seq gap (issue 36 item 2)', () => {
  it('refuses a first event that does not follow the last event of the log it continues, and writes the one that does', async () => {
    const path = await tempLog(lines(1, 2));
    const sink = jsonlSink(path);
    const error = await refusal(sink.append(event(5)));
    expect(error).toMatchObject({ code: 'SINK_FAILED', data: { seq: 5 } });
    expect((error as Error).message).toMatch(/event 5 not written: it would follow seq 2/);
    expect(await readFile(path, 'utf8')).toBe(lines(1, 2));
    await sink.append(event(3));
    expect(await refusal(sink.append(event(5)))).toMatchObject({ code: 'SINK_FAILED' });
    await sink.append(event(4));
    await sink.close?.();
    expect(await readFile(path, 'utf8')).toBe(lines(1, 2, 3, 4));
  });

  it('finds the last event behind a terminated torn line, and refuses to continue a log that ends in a torn line', async () => {
    const terminated = await tempLog(`${lines(1, 2)}{"seq":3,"at":"20\n`);
    const sink = jsonlSink(terminated);
    await sink.append(event(3));
    await sink.close?.();
    expect((await readFile(terminated, 'utf8')).endsWith(lines(3))).toBe(true);

    const torn = await tempLog(`${lines(1, 2)}{"seq":3,"at":"20`);
    const error = await refusal(jsonlSink(torn).append(event(3)));
    expect((error as Error).message).toMatch(/ends in a torn line/);
    expect(await readFile(torn, 'utf8')).toBe(`${lines(1, 2)}{"seq":3,"at":"20`);
  });

  it('refuses a continuing event for a log that has no events, and every event after a refused one', async () => {
    const path = await tempLog('');
    const sink = jsonlSink(path);
    expect(await refusal(sink.append(event(2)))).toMatchObject({ code: 'SINK_FAILED' });
    const fresh = jsonlSink(join(path, '..', 'new.jsonl'));
    await fresh.append(event(1));
    expect(await refusal(fresh.append(event(3)))).toMatchObject({ code: 'SINK_FAILED' });
    expect(await refusal(fresh.append(event(4)))).toMatchObject({ code: 'SINK_FAILED' });
    await fresh.close?.();
    expect(await readFile(join(path, '..', 'new.jsonl'), 'utf8')).toBe(lines(1));
    expect(await readFile(path, 'utf8')).toBe('');
  });

  it('reads the end of a log whose last line is longer than one read', async () => {
    const long = { ...event(2), data: { text: 'x'.repeat(200_000), parts: [] } };
    const path = await tempLog(`${lines(1)}${JSON.stringify(long)}\n`);
    const sink = jsonlSink(path);
    await sink.append(event(3));
    await sink.close?.();
    expect((await readFile(path, 'utf8')).endsWith(lines(3))).toBe(true);
  });
});
