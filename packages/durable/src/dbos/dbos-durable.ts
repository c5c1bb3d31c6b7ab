import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { Durable, WaitResult } from '../durable.js';

/**
 * Where a durable wait stands, published as the workflow event named like
 * the wait's key: `approve` reads it to tell `delivered` from `kept`, and a
 * closed wait from an open one.
 */
export interface WaitState {
  readonly state: 'waiting' | 'answered' | 'timeout';
}

/**
 * A {@link Durable} over the DBOS workflow running now (call it inside a
 * workflow, once per execution). Steps are `DBOS.runStep` (one checkpoint
 * each), a wait is `DBOS.recv` on a topic named by the key with a durable
 * deadline, and sleep, clock and ids are DBOS's own checkpointed ones.
 * A value posted as `null` reads as the deadline: post objects.
 */
export function dbosDurable(): Durable {
  return {
    // Not journaled on purpose: a fresh id per execution (see `Durable.attempt`).
    attempt: randomUUID(),
    step: <T>(name: string, fn: () => Promise<T>) => DBOS.runStep(fn, { name }),
    wait: async <T>(key: string, timeoutMs: number): Promise<WaitResult<T>> => {
      await DBOS.setEvent<WaitState>(key, { state: 'waiting' });
      const value = await DBOS.recv<T>(key, { timeoutSeconds: timeoutMs / 1000 });
      await DBOS.setEvent<WaitState>(key, { state: value === null ? 'timeout' : 'answered' });
      return value === null ? { status: 'timeout' } : { status: 'resolved', value };
    },
    sleep: (ms) => DBOS.sleep(ms),
    now: () => DBOS.now(),
    uuid: () => DBOS.randomUUID(),
  };
}
