import { describe, expect, it } from 'vitest';
import { StderrBuffer } from './stderr-buffer.js';

describe('StderrBuffer', () => {
  it('keeps the last bytes within its limit and counts what it dropped', () => {
    const buffer = new StderrBuffer(10);
    buffer.push(Buffer.from('0123456'));
    buffer.push(Buffer.from('789abc'));
    expect(buffer.text()).toBe('3456789abc');
    expect(buffer.droppedBytes).toBe(3);
    buffer.push(Buffer.from('a very long chunk that alone passes the limit'));
    expect(buffer.text()).toBe(' the limit');
    expect(buffer.text().length).toBeLessThanOrEqual(10);
  });

  it('keeps nothing with a zero limit', () => {
    const buffer = new StderrBuffer(0);
    buffer.push(Buffer.from('abc'));
    expect(buffer.text()).toBe('');
    expect(buffer.droppedBytes).toBe(3);
  });
});
