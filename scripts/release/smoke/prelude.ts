// The helpers the root README's example leaves to the reader, written as an integrator would.
// The smoke test puts the README's code block after an import of these, in a fresh project
// outside the workspace, and type-checks and runs it against the packed packages.
import type { ApprovalRequest } from '@deepseek-ai/dsh-core';

/** Every approval request the example made. */
export const asked: ApprovalRequest[] = [];
/** Every deploy the example's tool really ran. */
export const deployed: { service: string; env: string }[] = [];

/** Says yes to every request, as a user clicking "allow" would. */
export async function askTheUser(request: ApprovalRequest): Promise<boolean> {
  asked.push(request);
  return true;
}

/** A deploy that takes a moment and honours its signal. */
export async function deploy(service: string, env: 'staging' | 'production', options: { signal: AbortSignal }) {
  options.signal.throwIfAborted();
  await new Promise((resolve) => setTimeout(resolve, 1));
  deployed.push({ service, env });
  return { service, env, url: `https://${env}.example.com/${service}` };
}
