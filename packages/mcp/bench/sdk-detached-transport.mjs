// The baseline's transport: the SDK's own stdio framing (ReadBuffer, serializeMessage: JSON.parse and
// JSON.stringify) with the server spawned exactly as dsh spawns it (detached, so in its own process group
// and session, with stderr piped and read). Spawned like this, the server is scheduled like dsh's
// (on Linux a new session is a new autogroup), so the ratio compares the clients, not the spawns.
import { spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';

export class SdkDetachedStdioTransport {
  #command;
  #args;
  #child;
  #buffer = new ReadBuffer();

  constructor(command, args) {
    this.#command = command;
    this.#args = args;
  }

  start() {
    return new Promise((resolve, reject) => {
      const child = spawn(this.#command, this.#args, { env: getDefaultEnvironment(), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      this.#child = child;
      child.once('error', reject);
      child.once('spawn', resolve);
      child.once('close', () => this.onclose?.());
      child.stderr.on('data', () => undefined);
      child.stdout.on('data', (chunk) => {
        this.#buffer.append(chunk);
        for (let message = this.#buffer.readMessage(); message !== null; message = this.#buffer.readMessage()) this.onmessage?.(message);
      });
    });
  }

  send(message) {
    return new Promise((resolve) => {
      if (this.#child.stdin.write(serializeMessage(message))) resolve();
      else this.#child.stdin.once('drain', resolve);
    });
  }

  async close() {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await closed;
  }
}
