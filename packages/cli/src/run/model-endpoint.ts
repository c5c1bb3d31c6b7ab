import { isIP } from 'node:net';
import { messageOf } from '@deepseek-ai/dsh-core';

/** True for a base URL on this machine (localhost, 127.0.0.0/8, ::1): a local server that needs no API key. */
export function isLocalEndpoint(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/**
 * Why `baseUrl` cannot be reached, in the system's words (`connect
 * ECONNREFUSED 127.0.0.1:9`), by trying it once; undefined when it answers.
 * Used only after a request failed with the SDK's bare "Connection error.".
 */
export async function unreachableBecause(baseUrl: string): Promise<string | undefined> {
  try {
    const response = await fetch(baseUrl, { signal: AbortSignal.timeout(10_000) });
    await response.body?.cancel();
    return undefined;
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause === undefined ? messageOf(error) : messageOf(cause);
  }
}
