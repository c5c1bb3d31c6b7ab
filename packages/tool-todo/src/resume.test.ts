import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonlSink, loadSessionLog } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { todoState, toolTodo } from './index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-todo-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const first = [
  { content: 'Write the parser', status: 'in_progress', activeForm: 'Writing the parser' },
  { content: 'Test the parser', status: 'pending', activeForm: 'Testing the parser' },
];

async function firstRun(path: string): Promise<void> {
  const t = await createTestHost({ session: 's1', sink: jsonlSink(path), plugins: [toolTodo()] });
  expect(await t.call('todo_write', { todos: first })).toMatchObject({ status: 'ok' });
  await t.host.close();
}

describe('resuming a session', () => {
  it('rebuilds the list from the session log and diffs the next write against it', async () => {
    const path = join(dir, 'session.jsonl');
    await firstRun(path);
    const { events } = await loadSessionLog(path);
    const plugin = toolTodo({ history: events });
    const t = await createTestHost({ session: 's1', plugins: [plugin] });
    expect(todoState(t.host)?.todos).toEqual(first);
    expect(todoState(t.host)?.snapshot.session).toBe('s1');
    const next = [
      { content: 'Write the parser', status: 'completed', activeForm: 'Writing the parser' },
      { content: 'Test the parser', status: 'in_progress', activeForm: 'Testing the parser' },
    ];
    await t.call('todo_write', { todos: next });
    const write = t.host.events.list().find((e) => e.type === 'todo/write');
    expect(write?.data).toMatchObject({
      diff: {
        added: [],
        removed: [],
        changed: [
          { content: 'Write the parser', from: 'in_progress', to: 'completed' },
          { content: 'Test the parser', from: 'pending', to: 'in_progress' },
        ],
      },
    });
  });

  it('resumes from a log torn mid-line after a crash, and skips a damaged todo event', async () => {
    const path = join(dir, 'session.jsonl');
    await firstRun(path);
    appendFileSync(
      path,
      '{"seq":99,"at":"2026-01-01T00:00:00.000Z","session":"s1","type":"todo/write","data":{"todos":[{"content":7}]}}\n',
    );
    appendFileSync(path, '{"seq":100,"at":"2026-01-01T00:00:00.000Z","session":"s1","type":"todo/wr');
    const loaded = await loadSessionLog(path);
    expect(loaded.droppedTornLine).toBe(true);
    const t = await createTestHost({ plugins: [toolTodo({ history: loaded.events })] });
    expect(todoState(t.host)?.todos).toEqual(first);
  });

  it('starts empty with no history', async () => {
    const t = await createTestHost({ plugins: [toolTodo()] });
    expect(todoState(t.host)?.todos).toEqual([]);
    expect(todoState(t.host)?.snapshot.seq).toBe(0);
  });
});
