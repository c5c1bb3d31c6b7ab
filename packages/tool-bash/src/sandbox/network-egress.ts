import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DshError, type Host, type ToolContext, ToolError } from '@deepseek-ai/dsh-core';
import {
  type DomainPolicy,
  domainPolicy,
  type EgressConnectionInfo,
  type EgressConnectionRecord,
  type EgressDecision,
  type EgressDestination,
  type EgressProxy,
  startEgressProxy,
} from '@deepseek-ai/dsh-egress';
import { BashErrorCode } from '../errors.js';
import { findExecutable } from '../internal/find-executable.js';
import type { NetworkAccessAsker } from './network-access-tool.js';
import { type NetworkConnectData, networkConnectData } from './network-connect-event.js';
import type { NetworkPolicyOptions } from './network-policy.js';
import { makePrivateDirectory, removePrivateDirectory, writablePathSeenHolding } from './private-directory.js';
import type { EgressRelay } from './provider.js';

/** A bash call whose command may reach the proxy, until `close`. */
export interface EgressCallHandle {
  readonly relay: EgressRelay;
  /** Closes the call's tunnels and socket, and waits until its `network/connect` events are logged. */
  close(): Promise<void>;
}

interface OpenCall {
  readonly ctx: ToolContext;
  readonly logged: Promise<void>[];
  closed: boolean;
}

/** How long the proxy stays up after its last call (ms): calls back to back share it, and an idle host does not keep it. */
const idleCloseMs = 1_000;

/**
 * The network of sandboxed `bash` calls through the egress proxy: one proxy
 * per plugin instance, started by the first call that needs it (and closed
 * when no call has used it for a second, so an idle host does not keep it),
 * one socket per call bound into the sandbox. A new destination is decided
 * by the denied list, then the allowed list, else by a sub-call through the
 * pipeline (taps, grants, the host's approval provider) naming the bash call.
 * Every connection is logged as `network/connect` under its call.
 */
export class NetworkEgress {
  readonly #host: Host;
  readonly #network: NetworkPolicyOptions;
  readonly #domains: DomainPolicy;
  readonly #asker: NetworkAccessAsker;
  readonly #calls = new Map<string, OpenCall>();
  #proxy: Promise<EgressProxy> | undefined;
  #directory: { readonly path: string; readonly owned: boolean } | undefined;
  /** Socket folders of ours given up (a sandbox was given a path holding them): removed with the proxy. */
  readonly #retired: string[] = [];
  #relayPath: string | undefined;
  #idle: NodeJS.Timeout | undefined;
  #sockets = 0;
  #asks = 0;
  /** The option's lists joined with the host policy's, rebuilt when the host policy's version changes. */
  #joined: { readonly version: number; readonly domains: DomainPolicy } | undefined;

  constructor(options: { host: Host; network: NetworkPolicyOptions; domains: DomainPolicy; asker: NetworkAccessAsker }) {
    this.#host = options.host;
    this.#network = options.network;
    this.#domains = options.domains;
    this.#asker = options.asker;
  }

  /**
   * Opens the proxy side of a call. Throws a `ToolError`: `NETWORK_RELAY_MISSING`
   * when the relay is not installed, or the proxy's own code (`EGRESS_SOCKET_IN_USE`,
   * `EGRESS_LISTEN_FAILED`, `EGRESS_CALL_REFUSED`) when it cannot listen.
   */
  async open(ctx: ToolContext): Promise<EgressCallHandle> {
    const relayPath = this.#relay();
    clearTimeout(this.#idle);
    const callId = ctx.call.id;
    const entry: OpenCall = { ctx, logged: [], closed: false };
    this.#calls.set(callId, entry);
    try {
      const proxy = await this.#started();
      const socketPath = join(this.#socketDirectory(), `call-${++this.#sockets}.sock`);
      const call = await proxy.openCall(callId, { socketPath });
      return {
        relay: { socketPath, relayPath },
        close: async () => {
          await call.close();
          entry.closed = true;
          await Promise.all(entry.logged);
          this.#forget(callId, entry);
        },
      };
    } catch (error) {
      this.#forget(callId, entry);
      if (DshError.isInstance(error)) throw new ToolError(error.code, `the network proxy could not serve this call: ${error.message}`);
      throw error;
    }
  }

  #relay(): string {
    this.#relayPath ??= findExecutable(this.#network.relayPath);
    if (this.#relayPath !== undefined) return this.#relayPath;
    throw new ToolError(
      BashErrorCode.NETWORK_RELAY_MISSING,
      `the network relay "${this.#network.relayPath}" was not found, so this command cannot reach the network proxy; ` +
        'install socat (apt-get install -y socat) or set sandbox.network.relayPath. The command did not run.',
    );
  }

  #started(): Promise<EgressProxy> {
    if (this.#proxy !== undefined) return this.#proxy;
    const proxy = startEgressProxy({
      socketPath: join(this.#socketDirectory(), 'egress.sock'),
      decide: (destination, connection) => this.#decide(destination, connection),
      onConnection: (record) => this.#log(record),
      allowAddresses: this.#network.allowAddresses,
    });
    this.#proxy = proxy;
    // A proxy that did not start is forgotten: the next call tries again (the socket may be free by then).
    proxy.catch(() => {
      if (this.#proxy === proxy) this.#proxy = undefined;
    });
    return proxy;
  }

  /**
   * socat follows the call's socket by its host path, so a folder of ours is
   * made outside every path a sandbox may write, and replaced once one may
   * (`bwrap`'s `wrap` refuses a call whose socket folder it may write).
   */
  #socketDirectory(): string {
    const current = this.#directory;
    if (current !== undefined && !(current.owned && writablePathSeenHolding(current.path) !== undefined)) return current.path;
    if (current !== undefined) this.#retired.push(current.path);
    const given = this.#network.socketDirectory;
    if (given !== undefined) mkdirSync(given, { recursive: true, mode: 0o700 });
    const path = given ?? makePrivateDirectory('dsh-egress-');
    this.#directory = { path, owned: given === undefined };
    return path;
  }

  async #decide(destination: EgressDestination, connection: EgressConnectionInfo): Promise<EgressDecision> {
    const domains = this.#domainsNow();
    if (domains instanceof Error) return { decision: 'deny', by: 'tool-bash', reason: domains.message };
    const verdict = domains.check(destination);
    if (verdict.verdict === 'deny') return { decision: 'deny', by: `deniedDomains ${verdict.pattern}` };
    if (verdict.verdict === 'allow') return { decision: 'allow', by: `allowedDomains ${verdict.pattern}` };
    const call = this.#calls.get(connection.callId);
    if (call === undefined || call.closed) return { decision: 'deny', by: 'tool-bash', reason: 'the call is over' };
    return await this.#asker.ask(call.ctx, `${connection.callId}-net-${++this.#asks}`, destination, connection.protocol);
  }

  /**
   * The option's lists and those of `host.sandboxPolicy` (permission rules,
   * Claude Code settings), joined; with `allowManagedDomainsOnly`, only the
   * managed allowed list allows. A host policy that fails, or has a pattern
   * that cannot match, denies every destination until it is fixed (fail closed).
   */
  #domainsNow(): DomainPolicy | Error {
    try {
      const merged = this.#host.sandboxPolicy.current();
      if (merged.sources.length === 0) return this.#domains;
      if (this.#joined?.version === merged.version) return this.#joined.domains;
      const { network } = merged;
      const domains = domainPolicy({
        allowedDomains: network.allowManagedDomainsOnly
          ? network.managedAllowedDomains
          : [...this.#network.allowedDomains, ...network.allowedDomains],
        deniedDomains: [...this.#network.deniedDomains, ...network.deniedDomains],
      });
      this.#joined = { version: merged.version, domains };
      return domains;
    } catch (error) {
      return new Error(`the host's sandbox policy cannot be used: ${(error as Error).message}`);
    }
  }

  #log(record: EgressConnectionRecord): void {
    const call = record.callId === undefined ? undefined : this.#calls.get(record.callId);
    if (call === undefined) return;
    const data: NetworkConnectData = networkConnectData(record);
    const logged = (
      call.closed ? this.#host.events.emit('network/connect', data, call.ctx.call) : call.ctx.emit('network/connect', data)
    ).catch(
      () => undefined, // the log reports its own failures in diagnostics
    );
    call.logged.push(logged);
  }

  #forget(callId: string, entry: OpenCall): void {
    if (this.#calls.get(callId) === entry) this.#calls.delete(callId);
    if (this.#calls.size > 0 || this.#proxy === undefined) return;
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => void this.#closeIdle(), idleCloseMs);
  }

  async #closeIdle(): Promise<void> {
    const proxy = this.#proxy;
    if (proxy === undefined || this.#calls.size > 0) return;
    this.#proxy = undefined;
    await (await proxy.catch(() => undefined))?.close();
    const directory = this.#directory;
    if (directory?.owned === true && this.#proxy === undefined) {
      this.#directory = undefined;
      removePrivateDirectory(directory.path);
    }
    if (this.#proxy === undefined) for (const path of this.#retired.splice(0)) removePrivateDirectory(path);
  }
}
