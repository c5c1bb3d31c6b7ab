import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from '@deepseek-ai/dsh-core';
import { AgentsBridgeError, AgentsErrorCode } from './errors.js';

/**
 * What the bridge remembers about one call that dsh asked approval for, keyed
 * by `<session>:<call id>`. `pending` while the run is interrupted on it;
 * `settled` once dsh gave it its one result, which a restored run then reads
 * back instead of running the call again.
 */
export type DecisionRecord =
  | {
      readonly state: 'pending';
      readonly session: string;
      readonly callId: string;
      readonly tool: string;
      /** The effective arguments dsh asked about, as lossless JSON text: an approval covers exactly these. */
      readonly args: string;
      /** Why dsh asked (the tap's reason), when it said. */
      readonly reason?: string;
    }
  | {
      readonly state: 'settled';
      readonly session: string;
      readonly callId: string;
      readonly tool: string;
      readonly args: string;
      readonly reason?: string;
      /** The outcome's status and the text the model read. */
      readonly status: 'ok' | 'error' | 'denied' | 'blocked';
      readonly text: string;
    };

/**
 * Where the bridge keeps {@link DecisionRecord}s. A run restored in a fresh
 * process resumes its interrupted calls only if this store outlives the
 * process (see {@link fileDecisionStore}). Methods may be synchronous or not.
 */
export interface DecisionStore {
  /** The record under `key`, or `undefined`. */
  get(key: string): DecisionRecord | undefined | Promise<DecisionRecord | undefined>;
  /** Writes the record under `key`; it must be readable by `get` once this settles. */
  set(key: string, record: DecisionRecord): void | Promise<void>;
}

const recordSchema = z.discriminatedUnion('state', [
  z.strictObject({
    state: z.literal('pending'),
    session: z.string(),
    callId: z.string(),
    tool: z.string(),
    args: z.string(),
    reason: z.string().optional(),
  }),
  z.strictObject({
    state: z.literal('settled'),
    session: z.string(),
    callId: z.string(),
    tool: z.string(),
    args: z.string(),
    reason: z.string().optional(),
    status: z.enum(['ok', 'error', 'denied', 'blocked']),
    text: z.string(),
  }),
]);

/** A store in memory: the default. It lives as long as the bridge, so a restored run resumes only in the same process. */
export function memoryDecisionStore(): DecisionStore {
  const records = new Map<string, DecisionRecord>();
  return {
    get: (key) => records.get(key),
    set: (key, record) => {
      records.set(key, record);
    },
  };
}

/**
 * A store of one JSON file per call in `dir` (created when missing), each
 * written to a temporary file and renamed into place, so a crash leaves the
 * old record or the new one. Give the same `dir` to the bridge of the process
 * that restores the run.
 */
export function fileDecisionStore(dir: string): DecisionStore {
  if (typeof dir !== 'string' || dir.length === 0) {
    throw new AgentsBridgeError(AgentsErrorCode.INVALID_OPTIONS, 'fileDecisionStore: dir: must be a non-empty string');
  }
  let made: Promise<unknown> | undefined;
  const pathOf = (key: string) => join(dir, `${encodeURIComponent(key)}.json`);
  return {
    async get(key) {
      let text: string;
      try {
        text = await readFile(pathOf(key), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new AgentsBridgeError(AgentsErrorCode.STORE_FAILED, `decision store: cannot read ${pathOf(key)}`, { cause: error });
      }
      let parsed: ReturnType<typeof recordSchema.safeParse>;
      try {
        parsed = recordSchema.safeParse(JSON.parse(text));
      } catch (error) {
        throw new AgentsBridgeError(AgentsErrorCode.STORE_FAILED, `decision store: ${pathOf(key)} is not JSON`, { cause: error });
      }
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new AgentsBridgeError(
          AgentsErrorCode.STORE_FAILED,
          `decision store: ${pathOf(key)} is not a decision record (${issue?.path.join('.') || 'record'}: ${issue?.message ?? 'invalid'})`,
        );
      }
      return parsed.data as DecisionRecord;
    },
    async set(key, record) {
      try {
        made ??= mkdir(dir, { recursive: true });
        await made;
        const path = pathOf(key);
        const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
        await writeFile(temporary, JSON.stringify(record));
        await rename(temporary, path);
      } catch (error) {
        made = undefined;
        throw new AgentsBridgeError(AgentsErrorCode.STORE_FAILED, `decision store: cannot write the record of ${key}`, { cause: error });
      }
    },
  };
}
