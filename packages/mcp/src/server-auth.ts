import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { McpAuthStore } from './auth-store.js';
import type { OAuthSettings } from './config.js';
import { McpCallError, McpErrorCode } from './errors.js';
import { StoredOAuthProvider } from './oauth-provider.js';
import { SecretSet } from './secret-set.js';

/** What the host is asked when a server needs a person to authorize dsh. */
export interface AuthorizationRequest {
  readonly server: string;
  /** The authorization server's page to open in a browser; it redirects to dsh's loopback callback. */
  readonly url: string;
  /**
   * Aborted when dsh stops waiting (timeout, close), and when the
   * authorization arrived at the callback, with the reason
   * {@link authorizationArrived}: a handler still asking the person (a
   * terminal prompt) can stop.
   */
  readonly signal: AbortSignal;
}

/** The reason of {@link AuthorizationRequest.signal} once the authorization arrived at dsh's callback. */
export const authorizationArrived = 'authorization-arrived';

/**
 * Shows the authorization URL to the person (a prompt, a browser, an inbox).
 * Resolve once it is shown; the code arrives at the loopback callback.
 * Return `false` (or throw) when the person declines.
 */
export type AuthorizationHandler = (request: AuthorizationRequest) => undefined | boolean | Promise<undefined | boolean>;

/** How a server's OAuth behaves; resolved from the plugin's options. */
export interface AuthSettings {
  readonly store: McpAuthStore;
  readonly authorize: AuthorizationHandler | undefined;
  readonly authTimeoutMs: number;
}

/** One HTTP server's OAuth: the SDK provider, its secrets, and the step that needs a person. */
export class ServerAuth {
  readonly provider: OAuthClientProvider;
  readonly secrets = new SecretSet();
  readonly #server: string;
  readonly #settings: AuthSettings;
  readonly #closed = new AbortController();

  constructor(server: string, url: URL, oauth: OAuthSettings, settings: AuthSettings) {
    this.#server = server;
    this.#settings = settings;
    if (oauth.grant === 'client_credentials') {
      this.provider = clientCredentials(server, oauth, this.secrets);
    } else {
      this.provider = new StoredOAuthProvider(`${server} ${url.href}`, oauth, settings.store, this.secrets);
    }
  }

  /** The authorization URL the SDK asked a person to visit during the last attempt, taken once. */
  takePendingAuthorization(): URL | undefined {
    return this.provider instanceof StoredOAuthProvider ? this.provider.takePendingAuthorization() : undefined;
  }

  /**
   * Asks the host to show `url` and waits for the loopback callback's code.
   * Throws `MCP_AUTH_REQUIRED` when nobody can be asked, the person declines
   * or does not finish in time, and `MCP_AUTH_FAILED` when the authorization server answers with an error.
   */
  async authorize(url: URL): Promise<string> {
    const handler = this.#settings.authorize;
    const callback = this.provider instanceof StoredOAuthProvider ? this.provider.callback : undefined;
    const needs = `MCP server "${this.#server}" needs OAuth authorization`;
    if (handler === undefined || callback === undefined) {
      throw new McpCallError(
        McpErrorCode.MCP_AUTH_REQUIRED,
        `${needs}, and this host has no way to ask a person (no \`authorize\` handler)`,
      );
    }
    const signal = AbortSignal.any([this.#closed.signal, AbortSignal.timeout(this.#settings.authTimeoutMs)]);
    const answer = callback.next(signal);
    const arrived = new AbortController();
    answer.then(
      () => arrived.abort(authorizationArrived),
      () => undefined,
    );
    let shown: undefined | boolean;
    try {
      shown = await handler({ server: this.#server, url: url.href, signal: AbortSignal.any([signal, arrived.signal]) });
    } catch {
      shown = false;
    }
    if (shown === false) throw new McpCallError(McpErrorCode.MCP_AUTH_REQUIRED, `${needs}; the authorization was declined`);
    let result: Awaited<typeof answer>;
    try {
      result = await answer;
    } catch {
      const why = this.#closed.signal.aborted ? 'the server was closed' : `not finished within ${this.#settings.authTimeoutMs} ms`;
      throw new McpCallError(McpErrorCode.MCP_AUTH_REQUIRED, `${needs}; the authorization was ${why}`);
    }
    if ('error' in result) {
      throw new McpCallError(McpErrorCode.MCP_AUTH_FAILED, `the authorization server refused: ${this.secrets.redact(result.error)}`);
    }
    return result.code;
  }

  async close(): Promise<void> {
    this.#closed.abort(new Error('closed'));
    if (this.provider instanceof StoredOAuthProvider) await this.provider.close();
  }
}

function clientCredentials(server: string, oauth: OAuthSettings, secrets: SecretSet): OAuthClientProvider {
  const where = `mcpServers.${server}.oauth`;
  if (oauth.clientId === undefined) {
    throw new McpCallError(McpErrorCode.MCP_CONFIG_INVALID, `${where}: the client_credentials grant needs clientId`);
  }
  const scope = oauth.scope === undefined ? {} : { scope: oauth.scope };
  if (oauth.privateKey !== undefined) {
    secrets.add(oauth.privateKey);
    return recordingTokens(
      new PrivateKeyJwtProvider({
        clientId: oauth.clientId,
        privateKey: oauth.privateKey,
        algorithm: oauth.signingAlgorithm ?? 'ES256',
        clientName: 'dsh',
        ...scope,
      }),
      secrets,
    );
  }
  if (oauth.clientSecret === undefined) {
    throw new McpCallError(McpErrorCode.MCP_CONFIG_INVALID, `${where}: the client_credentials grant needs clientSecret or privateKey`);
  }
  secrets.add(oauth.clientSecret);
  const provider = new ClientCredentialsProvider({
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    clientName: 'dsh',
    ...scope,
  });
  return recordingTokens(provider, secrets);
}

/** Tokens a provider obtains are secrets too (they are kept in memory only: a new one is one request away). */
function recordingTokens<P extends OAuthClientProvider>(provider: P, secrets: SecretSet): P {
  const save = provider.saveTokens.bind(provider);
  provider.saveTokens = (tokens) => {
    secrets.addTokens(tokens);
    return save(tokens);
  };
  return provider;
}
