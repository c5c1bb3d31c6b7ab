import path from 'node:path';
import { DshError, type EventData, type ToolContext, ToolDenied } from '@deepseek-ai/dsh-core';
import { FsErrorCode } from '../errors.js';
import type { ResolvedPath } from '../workspace.js';
import { writeAtomic } from './atomic-write.js';
import type { CurrentFile } from './current-file.js';
import { sha256Of } from './current-file.js';
import type { PinnedTarget } from './open-file.js';
import { PinnedDirectory } from './pinned-dir.js';
import { type FsRuntime, readBeforeEditName } from './runtime.js';

/**
 * Raises `fs/write-intent` or `fs/edit-intent`. A veto ends the call with a
 * final `denied` outcome (`ToolDenied`), nothing having changed on disk: a
 * read-before-edit veto carries its own code (`FS_NOT_READ`, …), any other
 * handler's veto its code or `FS_GATE_VETOED`.
 */
export async function passGate(
  ctx: ToolContext,
  type: 'fs/write-intent' | 'fs/edit-intent',
  real: string,
  expectedSha256: string | null,
): Promise<void> {
  const verdict =
    type === 'fs/edit-intent' && expectedSha256 !== null
      ? await ctx.gate('fs/edit-intent', { path: real, expectedSha256 })
      : await ctx.gate('fs/write-intent', { path: real, expectedSha256 });
  if (verdict.allowed) return;
  if (verdict.by === readBeforeEditName) throw new ToolDenied(verdict.code ?? FsErrorCode.GATE_VETOED, verdict.reason, { by: verdict.by });
  throw new ToolDenied(verdict.code ?? FsErrorCode.GATE_VETOED, `the change to ${real} was vetoed by "${verdict.by}": ${verdict.reason}`, {
    by: verdict.by,
  });
}

/**
 * Writes new content for a path whose current state is `current` (the gate
 * has passed) through the directory pinned when it was read, creating
 * missing parent directories inside the workspace one level at a time, and
 * records what is now there with an `fs/observed` event.
 */
export async function commitWrite(
  ctx: ToolContext,
  rt: FsRuntime,
  target: ResolvedPath,
  pinned: PinnedTarget,
  current: CurrentFile,
  bytes: Uint8Array,
  complete: boolean,
): Promise<{ readonly sha256: string; readonly created: boolean }> {
  ctx.signal.throwIfAborted();
  const dir = pinned.dir ?? PinnedDirectory.create(rt.workspace, path.dirname(target.real), target.root);
  let mtimeMs: number;
  try {
    const replacing = current.exists ? { mode: current.mode, uid: current.uid, gid: current.gid } : undefined;
    mtimeMs = await writeAtomic(dir, pinned.name, bytes, replacing, rt.options.fsync);
  } finally {
    if (dir !== pinned.dir) dir.close();
  }
  const sha256 = sha256Of(bytes);
  await observe(ctx, { state: 'present', path: target.real, sha256, size: bytes.length, mtimeMs, complete });
  return { sha256, created: !current.exists };
}

/**
 * Emits `fs/observed`. The ledger follows the in-memory log, which holds the
 * event even when the sink fails; such a failure is not the tool's failure.
 */
export async function observe(ctx: ToolContext, observation: EventData<'fs/observed'>): Promise<void> {
  try {
    await ctx.emit('fs/observed', observation);
  } catch (error) {
    if (DshError.isInstance(error)) throw error;
  }
}
