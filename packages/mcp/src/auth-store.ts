import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DshError } from '@deepseek-ai/dsh-core';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpErrorCode } from './errors.js';

/** What is kept per server across sessions: its tokens, the client registration, the discovered metadata. */
export interface StoredAuth {
  readonly tokens?: OAuthTokens;
  readonly client?: OAuthClientInformationMixed;
  readonly discovery?: OAuthDiscoveryState;
}

/**
 * Where OAuth state lives between sessions. The key names the server and its
 * URL, so a server moved to another URL starts afresh. An integrator may keep
 * it anywhere (a keychain); {@link FileAuthStore} is the default.
 */
export interface McpAuthStore {
  load(key: string): Promise<StoredAuth | undefined>;
  /** Replaces the server's state; `undefined` forgets it. */
  save(key: string, value: StoredAuth | undefined): Promise<void>;
}

interface FileShape {
  readonly version: 1;
  readonly servers: Record<string, StoredAuth>;
}

/**
 * A JSON file readable by its owner only (mode 0600, in a 0700 folder when
 * dsh makes it). A file that others may read, or that is not this JSON, is
 * refused with `MCP_AUTH_STORE_INVALID` rather than used or overwritten.
 */
export class FileAuthStore implements McpAuthStore {
  readonly path: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  async load(key: string): Promise<StoredAuth | undefined> {
    const file = await this.#read();
    return Object.hasOwn(file.servers, key) ? file.servers[key] : undefined;
  }

  save(key: string, value: StoredAuth | undefined): Promise<void> {
    // Read-modify-write, one at a time: two servers saving at once must not lose either.
    const next = this.#queue.then(async () => {
      const file = await this.#read();
      const servers = { ...file.servers };
      if (value === undefined) delete servers[key];
      else servers[key] = value;
      await this.#write({ version: 1, servers });
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #read(): Promise<FileShape> {
    let mode: number;
    try {
      mode = (await stat(this.path)).mode;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: {} };
      throw storeError(`cannot read the token file ${this.path}: ${(error as Error).message}`);
    }
    if ((mode & 0o077) !== 0) {
      throw storeError(
        `the token file ${this.path} has mode ${(mode & 0o777).toString(8)}: others may read it; make it 0600 (chmod 600) or delete it`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(this.path, 'utf8'));
    } catch {
      throw storeError(`the token file ${this.path} is not valid JSON; delete it to authorize again`);
    }
    const servers = (parsed as { servers?: unknown } | null)?.servers;
    if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
      throw storeError(`the token file ${this.path} has no "servers" object; delete it to authorize again`);
    }
    return { version: 1, servers: servers as Record<string, StoredAuth> };
  }

  async #write(file: FileShape): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const temp = `${this.path}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    await chmod(temp, 0o600); // the umask cannot widen it, but an existing temp file keeps its mode
    await rename(temp, this.path);
  }
}

function storeError(message: string): DshError {
  return new DshError(McpErrorCode.MCP_AUTH_STORE_INVALID, message);
}
