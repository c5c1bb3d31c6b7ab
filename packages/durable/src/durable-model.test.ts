import { describe, expect, it } from 'vitest';
import { durableModel } from './durable-model.js';
import { MemoryJournal, memoryDurable } from './memory-durable.js';

describe('durableModel', () => {
  it('asks the model once per turn and replays journaled turns, streaming a replayed text once', async () => {
    const journal = new MemoryJournal();
    let asked = 0;
    const model = async (request: { n: number }) => {
      asked += 1;
      return { text: `turn ${request.n}`, calls: [] };
    };
    const first = durableModel(model, memoryDurable(journal));
    await first({ n: 1 }, {});
    await first({ n: 2 }, {});
    const texts: string[] = [];
    const replay = durableModel(model, memoryDurable(journal));
    expect(await replay({ n: 1 }, { onText: (t) => texts.push(t) })).toEqual({ text: 'turn 1', calls: [] });
    expect(await replay({ n: 2 }, {})).toEqual({ text: 'turn 2', calls: [] });
    expect(asked).toBe(2);
    expect(texts).toEqual(['turn 1']);
    expect(journal.entries.map((e) => e.name)).toEqual(['model 1', 'model 2']);
  });

  it('journals a failed request once and rethrows it with its status on replay', async () => {
    const journal = new MemoryJournal();
    const failing = async () => {
      throw Object.assign(new Error('rate limited'), { name: 'RateLimitError', status: 429 });
    };
    await expect(durableModel(failing, memoryDurable(journal))({}, {})).rejects.toMatchObject({ message: 'rate limited', status: 429 });
    let asked = 0;
    const later = async () => {
      asked += 1;
      return { text: 'ok' };
    };
    await expect(durableModel(later, memoryDurable(journal))({}, {})).rejects.toMatchObject({ name: 'RateLimitError', status: 429 });
    expect(asked).toBe(0);
  });
});
