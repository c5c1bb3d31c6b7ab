import { z } from '@deepseek-ai/dsh-core';
import type { EgressConnectionRecord } from '@deepseek-ai/dsh-egress';

/** The schema of `network/connect`: one destination a sandboxed command opened or was refused, logged under its call. */
export const networkConnectEvent = z.object({
  /** The proxy's number for the client connection (forwarded requests may share one). */
  connection: z.number().int(),
  protocol: z.enum(['http-connect', 'http-forward', 'socks5']),
  host: z.string().optional(),
  port: z.number().int().optional(),
  /** The checked address the proxy connected to. */
  address: z.string().optional(),
  decision: z.enum(['allow', 'deny']),
  /** Who decided: `deniedDomains <pattern>`, `allowedDomains <pattern>`, `approval`, `pre-execute` (a tap's grant), or `egress`. */
  decidedBy: z.string(),
  /** An egress code when refused or ended abnormally (`EGRESS_DENIED`, `EGRESS_CALL_CLOSED`, …). */
  code: z.string().optional(),
  reason: z.string().optional(),
  bytesUp: z.number().int(),
  bytesDown: z.number().int(),
  startedAt: z.string(),
  durationMs: z.number(),
});

/** The data of a `network/connect` event. */
export type NetworkConnectData = z.output<typeof networkConnectEvent>;

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    /** A destination a sandboxed command opened (or was refused) through the egress proxy. */
    'network/connect': NetworkConnectData;
  }
}

/** The event data of a proxy record: the call is the event's own, so `callId` is left out. */
export function networkConnectData(record: EgressConnectionRecord): NetworkConnectData {
  const { callId: _call, ...data } = record;
  return data;
}

/** What `dsh log` and the event catalog show for the type. */
export const networkConnectMeaning = {
  meaning: 'A sandboxed command opened (or was refused) a network destination through the egress proxy',
  example: {
    connection: 1,
    protocol: 'http-connect',
    host: 'registry.npmjs.org',
    port: 443,
    address: '104.16.0.35',
    decision: 'allow',
    decidedBy: 'allowedDomains *.npmjs.org',
    bytesUp: 517,
    bytesDown: 18_342,
    startedAt: '2026-12-07T10:00:00.000Z',
    durationMs: 412,
  },
} as const;
