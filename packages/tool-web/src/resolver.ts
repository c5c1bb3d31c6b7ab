import { lookup } from 'node:dns/promises';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * Resolves a host name to its addresses. `web_fetch` calls it once per hop
 * and connects only to an address it returned and the policy admitted.
 * Inject one to use your own DNS (or, in tests, a fixed table).
 */
export type Resolver = (hostname: string, options: { readonly signal: AbortSignal }) => Promise<readonly ResolvedAddress[]>;

/** The system resolver (`dns.lookup`, every address, in the order the system gives them). */
export const systemResolver: Resolver = async (hostname, { signal }) => {
  signal.throwIfAborted();
  // dns.lookup takes no signal; an abort rejects the race and the late answer is dropped.
  const answer = lookup(hostname, { all: true, verbatim: true });
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  answer.catch(() => undefined);
  aborted.catch(() => undefined);
  const found = await Promise.race([answer, aborted]);
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};
