import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** Secrets of one server (client secret, tokens) that must never appear in a message: each is replaced by a marker. */
export class SecretSet {
  readonly #secrets = new Set<string>();

  add(secret: string): void {
    // Short values would redact ordinary words; real secrets are longer.
    if (secret.length >= 6) this.#secrets.add(secret);
  }

  addTokens(tokens: OAuthTokens | undefined): void {
    if (tokens === undefined) return;
    this.add(tokens.access_token);
    if (tokens.refresh_token !== undefined) this.add(tokens.refresh_token);
  }

  /** The text with every known secret replaced by `[redacted]`. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) if (out.includes(secret)) out = out.split(secret).join('[redacted]');
    return out;
  }
}
