import { ToolError } from '@deepseek-ai/dsh-core';
import { proxyEnvironment } from '@deepseek-ai/dsh-egress';
import { BashErrorCode } from '../errors.js';
import type { RelayNamespace, SandboxCommand } from './provider.js';

/** The loopback port of the relay in the sandbox: HTTP proxy and SOCKS5 on one port, as the proxy tells them apart by the first byte. */
export const egressRelayPort = 3128;

/**
 * `HTTP(S)_PROXY`, `ALL_PROXY` (SOCKS5, names resolved by the proxy),
 * `NO_PROXY` and `GIT_SSH_COMMAND`, all pointing at the relay. No token: the
 * socket is the call's own.
 */
export function egressEnvironment(): Record<string, string> {
  return proxyEnvironment({ httpPort: egressRelayPort, socksPort: egressRelayPort });
}

/**
 * `command` (the sandbox launcher) started in the relay's network namespace:
 * `nsenter` joins it (and its user namespace, which owns it, unless this
 * process is root) and execs the launcher, which keeps that network.
 */
export function inRelayNamespace(namespace: RelayNamespace, command: SandboxCommand): SandboxCommand {
  const user = namespace.user === undefined ? [] : [`--user=${namespace.user}`, '--preserve-credentials'];
  return { ...command, file: namespace.nsenter, args: [...user, `--net=${namespace.net}`, '--', command.file, ...command.args] };
}

export function relayError(problem: string): ToolError {
  return new ToolError(
    BashErrorCode.NETWORK_RELAY_FAILED,
    `the network relay could not be started in a network namespace for the sandbox, so the command did not run: ${problem}`,
  );
}
