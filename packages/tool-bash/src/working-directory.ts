import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';

/** Whether `path` is one of `roots` or below one (paths already resolved). */
export function insideRoots(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
}

/** The resolved directory at `path`, or undefined when it is not an existing directory. */
export function existingDirectory(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The session's working directory: where each command starts, carried from
 * one call to the next. Only the directory persists; variables, functions,
 * aliases and shell options do not (each call is a fresh `bash -c`).
 */
export class WorkingDirectory {
  readonly start: string;
  readonly roots: readonly string[];
  #current: string;

  constructor(start: string, roots: readonly string[]) {
    this.start = start;
    this.roots = roots;
    this.#current = start;
  }

  get current(): string {
    return this.#current;
  }

  /**
   * Where the next command starts. When the directory has vanished, the
   * session falls back to the start directory and says so; when that is gone
   * too, answers `undefined`.
   */
  beforeCall(notices: string[]): string | undefined {
    // The current directory was resolved when it was taken: one stat tells whether it is still there.
    if (isDirectory(this.#current)) return this.#current;
    if (this.#current !== this.start) {
      notices.push(`the working directory ${this.#current} no longer exists; the command ran in ${this.start}`);
      this.#current = this.start;
    }
    return existingDirectory(this.start) === undefined ? undefined : this.start;
  }

  /**
   * Takes the directory a command ended in (from its report). A directory
   * outside the roots, or one that does not exist on the host (a sandbox's
   * private `/tmp`), resets the session to the start directory with a notice;
   * no report (the command replaced the EXIT trap, or was killed) keeps it.
   */
  afterCall(report: string, notices: string[]): void {
    // `pwd -P` ends with a newline; if the command also wrote to fd 3, the trap's line is the last.
    const reported = report.replace(/\n$/, '').split('\n').at(-1) ?? '';
    if (reported === '' || reported === this.#current) return;
    const resolved = isAbsolute(reported) ? existingDirectory(reported) : undefined;
    if (resolved !== undefined && insideRoots(resolved, this.roots)) {
      this.#current = resolved;
      return;
    }
    notices.push(`the command ended in ${reported}, outside the workspace roots; the next command starts in ${this.start}`);
    this.#current = this.start;
  }
}
