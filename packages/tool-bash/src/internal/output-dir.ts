import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Where full-output files go. A configured directory is created (mode 0700)
 * on first use; without one, a fresh private directory under the OS temp dir
 * is made on first use, so sessions that never overflow leave nothing behind.
 */
export class OutputDirectory {
  readonly #configured: string | undefined;
  #path: string | undefined;

  constructor(configured: string | undefined) {
    this.#configured = configured === undefined ? undefined : resolve(configured);
  }

  /** The directory, once it exists. */
  get existing(): string | undefined {
    return this.#path;
  }

  /** The directory, created if need be. Throws when it cannot be created. */
  ensure(): string {
    if (this.#path !== undefined) return this.#path;
    if (this.#configured === undefined) {
      this.#path = mkdtempSync(join(tmpdir(), 'dsh-bash-'));
    } else {
      mkdirSync(this.#configured, { recursive: true, mode: 0o700 });
      this.#path = this.#configured;
    }
    return this.#path;
  }
}
