import { lstatSync, unlinkSync } from 'node:fs';

/**
 * The empty files bwrap creates on the host as mount points for the stubs
 * that keep missing read-only paths from being created (see
 * `protectedLayout`). Each is held by the calls that mount it and removed
 * when the last one is over: removing it while a sandbox still runs would
 * detach that sandbox's mount, and the path could be created there. Only a
 * still-empty regular file is removed (anything else was made by someone
 * else); what a crash leaves is removed when this process exits.
 */
const holders = new Map<string, number>();
let exitHook = false;

/** Whether `path` is a stub some running call holds (it then looks like an existing empty file). */
export function isStub(path: string): boolean {
  return holders.has(path);
}

/** Holds `paths` for one call; the function returned releases them (once). */
export function holdStubs(paths: readonly string[]): () => void {
  if (paths.length === 0) return () => undefined;
  for (const path of paths) holders.set(path, (holders.get(path) ?? 0) + 1);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const path of holders.keys()) removeStub(path);
    });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const path of paths) {
      const left = (holders.get(path) ?? 1) - 1;
      if (left > 0) holders.set(path, left);
      else {
        holders.delete(path);
        removeStub(path);
      }
    }
  };
}

function removeStub(path: string): void {
  try {
    const stat = lstatSync(path);
    if (stat.isFile() && stat.size === 0) unlinkSync(path);
  } catch {
    // Never created (the sandbox did not start), or already gone.
  }
}
