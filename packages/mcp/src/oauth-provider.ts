import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpAuthStore, StoredAuth } from './auth-store.js';
import type { OAuthSettings } from './config.js';
import { LoopbackCallback } from './loopback-callback.js';
import type { SecretSet } from './secret-set.js';

/**
 * The SDK's OAuth client provider for the authorization-code flow, backed by
 * the auth store: tokens, the client registration and discovered metadata are
 * kept per server across sessions. The loopback callback is started when an
 * authorization begins, on the port registered before when there is one.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #key: string;
  readonly #settings: OAuthSettings;
  readonly #store: McpAuthStore;
  readonly #secrets: SecretSet;
  #state: StoredAuth | undefined;
  #loading: Promise<StoredAuth> | undefined;
  #callback: LoopbackCallback | undefined;
  #verifier: string | undefined;
  #pending: URL | undefined;
  /** An https URL of this client's metadata document (used as client id where the authorization server supports it). */
  readonly clientMetadataUrl?: string;

  constructor(key: string, settings: OAuthSettings, store: McpAuthStore, secrets: SecretSet) {
    this.#key = key;
    this.#settings = settings;
    this.#store = store;
    this.#secrets = secrets;
    if (settings.clientSecret !== undefined) secrets.add(settings.clientSecret);
    if (settings.clientMetadataUrl !== undefined) this.clientMetadataUrl = settings.clientMetadataUrl;
  }

  /** The authorization URL a person must visit, once the SDK asked for it; taken once. */
  takePendingAuthorization(): URL | undefined {
    const url = this.#pending;
    this.#pending = undefined;
    return url;
  }

  /** The loopback callback, once an authorization has begun. */
  get callback(): LoopbackCallback | undefined {
    return this.#callback;
  }

  get redirectUrl(): string {
    return this.#callback?.redirectUrl ?? 'http://127.0.0.1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'dsh',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(this.#settings.scope === undefined ? {} : { scope: this.#settings.scope }),
    };
  }

  async state(): Promise<string> {
    const state = randomBytes(16).toString('base64url');
    this.#callback?.expect(state);
    return state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    await this.#startCallback();
    const stored = (await this.#load()).client;
    const configured = this.#settings.clientId;
    if (configured === undefined) return stored;
    // A configured client wins over anything stored; the stored copy only adds the SDK's issuer stamp.
    if (stored?.client_id === configured) {
      return this.#settings.clientSecret === undefined ? stored : { ...stored, client_secret: this.#settings.clientSecret };
    }
    return {
      client_id: configured,
      ...(this.#settings.clientSecret === undefined ? {} : { client_secret: this.#settings.clientSecret }),
    };
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (client.client_secret !== undefined) this.#secrets.add(client.client_secret);
    await this.#update({ client });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    // Called before every request: after the first load it is a field read.
    return (this.#state ?? (await this.#load())).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#secrets.addTokens(tokens);
    await this.#update({ tokens });
  }

  redirectToAuthorization(url: URL): void {
    this.#pending = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no PKCE code verifier: the authorization was not started by this session');
    return this.#verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.#verifier = undefined;
      return;
    }
    const current = await this.#load();
    const drop = {
      tokens: scope === 'all' || scope === 'tokens',
      client: scope === 'all' || scope === 'client',
      discovery: scope === 'all' || scope === 'discovery',
    };
    await this.#replace({
      ...(drop.tokens || current.tokens === undefined ? {} : { tokens: current.tokens }),
      ...(drop.client || current.client === undefined ? {} : { client: current.client }),
      ...(drop.discovery || current.discovery === undefined ? {} : { discovery: current.discovery }),
    });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    // The first thing every authorization asks: the callback must listen before redirect_uris is read.
    await this.#startCallback();
    return (await this.#load()).discovery;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.#update({ discovery });
  }

  async close(): Promise<void> {
    await this.#callback?.close();
    this.#callback = undefined;
  }

  async #startCallback(): Promise<void> {
    if (this.#callback !== undefined) return;
    const stored = (await this.#load()).client;
    const configuredPort = this.#settings.callbackPort;
    const registeredPort = loopbackPort(stored);
    this.#callback = await LoopbackCallback.listen(configuredPort ?? registeredPort ?? 0, configuredPort === undefined);
    // A dynamically registered client whose redirect URI we can no longer serve must register again.
    if (stored !== undefined && this.#settings.clientId === undefined && registeredPort !== undefined) {
      if (!('redirect_uris' in stored) || !stored.redirect_uris.includes(this.redirectUrl)) {
        const { client: _, ...rest } = await this.#load();
        await this.#replace(rest);
      }
    }
  }

  #load(): Promise<StoredAuth> {
    if (this.#state !== undefined) return Promise.resolve(this.#state);
    this.#loading ??= this.#store.load(this.#key).then(
      (state) => {
        this.#state = state ?? {};
        this.#secrets.addTokens(this.#state.tokens);
        const secret = this.#state.client?.client_secret;
        if (secret !== undefined) this.#secrets.add(secret);
        return this.#state;
      },
      (error: unknown) => {
        this.#loading = undefined; // a fixed file is read again next time
        throw error;
      },
    );
    return this.#loading;
  }

  async #update(change: StoredAuth): Promise<void> {
    await this.#replace({ ...(await this.#load()), ...change });
  }

  async #replace(state: StoredAuth): Promise<void> {
    this.#state = state;
    // A configured client's secret stays in the configuration, never in the token file.
    const client = state.client;
    const persisted =
      this.#settings.clientId !== undefined && client?.client_id === this.#settings.clientId
        ? { ...state, client: { ...client, client_secret: undefined } }
        : state;
    const empty = persisted.tokens === undefined && persisted.client === undefined && persisted.discovery === undefined;
    await this.#store.save(this.#key, empty ? undefined : persisted);
  }
}

function loopbackPort(client: OAuthClientInformationMixed | undefined): number | undefined {
  const uri = client !== undefined && 'redirect_uris' in client ? client.redirect_uris[0] : undefined;
  if (uri === undefined) return undefined;
  try {
    const url = new URL(uri);
    return url.hostname === '127.0.0.1' && url.port !== '' ? Number(url.port) : undefined;
  } catch {
    return undefined;
  }
}
