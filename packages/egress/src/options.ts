import { z } from '@deepseek-ai/dsh-core';
import type { EgressConnectionRecord, EgressDecider, EgressLimits, EgressResolver } from './types.js';

const ms = z.number().int().positive().max(2_147_483_647);
const fn = <T>(what: string) => z.custom<T>((value) => typeof value === 'function', `must be a function (${what})`);

/** The zod schema of `startEgressProxy` options. */
export const egressProxyOptionsSchema = z.strictObject({
  /** The unix socket the proxy listens on; bind it into the sandbox. Created with mode 0600. */
  socketPath: z
    .string()
    .min(1)
    .refine((path) => !path.includes('\0'), 'must not contain NUL bytes')
    .refine((path) => Buffer.byteLength(path) <= 107, 'is longer than a unix socket path may be (107 bytes)'),
  /** Also listen on loopback TCP (port 0: any free port). Never on another interface. */
  tcp: z.strictObject({ host: z.enum(['127.0.0.1', '::1']).default('127.0.0.1'), port: z.number().int().min(0).max(65535) }).optional(),
  decide: fn<EgressDecider>('destination, connection) => "allow" | "deny"'),
  resolve: fn<EgressResolver>('host) => Promise<addresses>').optional(),
  /** Addresses (or CIDR blocks) reachable although a restricted range holds them: `127.0.0.1/32`, `10.0.0.0/8`. */
  allowAddresses: z.array(z.string()).default([]),
  /** Ask once per call and destination (default), or for every connection. */
  rememberDecisions: z.boolean().default(true),
  onConnection: fn<(record: EgressConnectionRecord) => void>('record) => void').optional(),
  limits: z
    .strictObject({
      maxConnectionsPerCall: z.number().int().positive().default(64),
      maxPendingConnections: z.number().int().positive().default(128),
      handshakeTimeoutMs: ms.default(10_000),
      idleTimeoutMs: ms.default(300_000),
      connectTimeoutMs: ms.default(30_000),
      maxHeaderBytes: z.number().int().min(1024).max(1_048_576).default(16_384),
    })
    .prefault({}),
});

/** Options of {@link startEgressProxy}. */
export interface EgressProxyOptions {
  readonly socketPath: string;
  readonly tcp?: { readonly host?: '127.0.0.1' | '::1'; readonly port: number };
  readonly decide: EgressDecider;
  /** Name resolution on the proxy's side; `dns.lookup` (all addresses) by default. Tests inject one. */
  readonly resolve?: EgressResolver;
  readonly allowAddresses?: readonly string[];
  readonly rememberDecisions?: boolean;
  /** Receives a record per destination opened or refused: log it as a `network/connect` event. A throw is ignored. */
  readonly onConnection?: (record: EgressConnectionRecord) => void;
  readonly limits?: EgressLimits;
}

/** Options after validation and defaults. */
export type ResolvedEgressOptions = z.output<typeof egressProxyOptionsSchema>;
