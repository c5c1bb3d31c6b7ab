/** Where a sandboxed command reaches the proxy: the loopback relays inside its namespace. */
export interface ProxyEnvironmentOptions {
  /** The call's token (`EgressCall.token`); omit when the command's socket is the call's own. */
  readonly token?: string;
  /** The in-sandbox relay port for HTTP (default 3128, as sandbox-runtime uses). */
  readonly httpPort?: number;
  /** The in-sandbox relay port for SOCKS5 (default 1080). */
  readonly socksPort?: number;
}

/**
 * The environment a sandboxed command gets so that its clients use the proxy:
 * `HTTP(S)_PROXY` (upper and lower case), `ALL_PROXY` (SOCKS5 with names
 * resolved by the proxy), `NO_PROXY` for loopback, and `GIT_SSH_COMMAND`
 * tunnelling ssh through CONNECT with socat.
 */
export function proxyEnvironment(options: ProxyEnvironmentOptions = {}): Record<string, string> {
  const httpPort = options.httpPort ?? 3128;
  const socksPort = options.socksPort ?? 1080;
  const credentials = options.token === undefined ? '' : `${encodeURIComponent(options.token)}:x@`;
  const http = `http://${credentials}127.0.0.1:${httpPort}`;
  const socks = `socks5h://${credentials}127.0.0.1:${socksPort}`;
  const proxyAuth = options.token === undefined ? '' : `,proxyauth=${options.token}:x`;
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    GIT_SSH_COMMAND: `ssh -o ProxyCommand='socat - PROXY:127.0.0.1:%h:%p,proxyport=${httpPort}${proxyAuth}'`,
  };
}
