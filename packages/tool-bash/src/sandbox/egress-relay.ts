import { proxyEnvironment } from '@deepseek-ai/dsh-egress';
import type { EgressRelay, SandboxCommand } from './provider.js';

/** Where the call's egress socket appears inside the sandbox (on its private `/tmp`, so bwrap makes the mount point there). */
export const egressSocketInside = '/tmp/.dsh-egress.sock';

/** The loopback port of the relay inside: HTTP proxy and SOCKS5 on one port, as the proxy tells them apart by the first byte. */
export const egressRelayPort = 3128;

/** `0100007F:0C38`: 127.0.0.1:3128 as `/proc/net/tcp` writes it. */
const listenKey = `0100007F:${egressRelayPort.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Starts the relay (socat, listening on 127.0.0.1:3128 of the sandbox's own
 * network namespace, forwarding each connection to the call's socket), waits
 * until it listens, then execs the command. A relay that dies before it
 * listens ends the call with exit code 127 and a message: never the command
 * without its way out. The relay dies with the sandbox's PID namespace.
 */
const relayScript = [
  'relay=$1; socket=$2; shift 2',
  `"$relay" TCP-LISTEN:${egressRelayPort},bind=127.0.0.1,fork,reuseaddr "UNIX-CONNECT:$socket" </dev/null >/dev/null 2>&1 3>&- &`,
  'pid=$!; ready=',
  'while [ -z "$ready" ]; do',
  `  while read -r _ local _ state _; do if [ "$local $state" = "${listenKey} 0A" ]; then ready=1; break; fi; done </proc/net/tcp`,
  '  if [ -z "$ready" ] && ! kill -0 "$pid" 2>/dev/null; then echo "dsh: the network relay ($relay) did not start" >&2; exit 127; fi',
  'done',
  'exec "$@"',
].join('\n');

/** The command, run behind the relay. */
export function behindRelay(command: SandboxCommand, egress: EgressRelay): SandboxCommand {
  return {
    ...command,
    file: '/bin/sh',
    args: ['-c', relayScript, 'dsh-egress-relay', egress.relayPath, egressSocketInside, command.file, ...command.args],
  };
}

/** bwrap arguments that put the call's socket inside (after `/tmp` is mounted). */
export function egressBindArgs(egress: EgressRelay): string[] {
  return ['--bind', egress.socketPath, egressSocketInside];
}

/**
 * `HTTP(S)_PROXY`, `ALL_PROXY` (SOCKS5, names resolved by the proxy),
 * `NO_PROXY` and `GIT_SSH_COMMAND`, all pointing at the relay. No token: the
 * socket is the call's own.
 */
export function egressEnvironment(): Record<string, string> {
  return proxyEnvironment({ httpPort: egressRelayPort, socksPort: egressRelayPort });
}
