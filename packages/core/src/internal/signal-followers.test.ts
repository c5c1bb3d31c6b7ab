import { describe, expect, it } from 'vitest';
import { followSignal } from './signal-followers.js';

/** A follower that writes its name and the reason into `heard`. */
const follower = (name: string, heard: string[]) => ({ abort: (reason: unknown) => heard.push(`${name}:${String(reason)}`) });

describe('followSignal', () => {
  it('aborts every follower still following, with the reason, and none that left', () => {
    const controller = new AbortController();
    const heard: string[] = [];
    const leaves = ['a', 'b', 'c', 'd'].map((name) => followSignal(controller.signal, follower(name, heard)));
    leaves[1]?.();
    leaves[1]?.();
    leaves[0]?.();
    controller.abort('stop');
    expect(heard.sort()).toEqual(['c:stop', 'd:stop']);
    // Following an aborted signal aborts at once; leaving afterwards changes nothing.
    const late = followSignal(controller.signal, follower('e', heard));
    late();
    expect(heard).toContain('e:stop');
    leaves[2]?.();
  });

  it('adds one listener per signal however many follow it', () => {
    const controller = new AbortController();
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners += 1;
      add(...args);
    }) as typeof add;
    const heard: string[] = [];
    for (let i = 0; i < 100; i++) followSignal(controller.signal, follower(`f${i}`, heard))();
    followSignal(controller.signal, follower('kept', heard));
    controller.abort('x');
    expect(listeners).toBe(1);
    expect(heard).toEqual(['kept:x']);
  });
});
