import { join, resolve } from 'node:path';
import type { SandboxPolicyPart } from '@deepseek-ai/dsh-core';
import type { Anchors, SourcedRule } from '@deepseek-ai/dsh-rules';
import type { SandboxSettings } from './sandbox-settings.js';

/**
 * What the permission rules and the `sandbox` settings ask of sandboxed
 * commands, as Claude Code merges them: a `Read(...)` deny hides the path,
 * an `Edit(...)` deny makes it read-only, an `Edit(...)` allow makes it
 * writable, `WebFetch(domain:...)` allows and denies join the domain lists;
 * then `sandbox.filesystem.{denyRead,denyWrite,allowWrite}` and
 * `sandbox.network` are added as they are; the additional directories
 * (`permissions.additionalDirectories`, the option) are writable, as in
 * Claude Code. Whole-tool rules (`Read`, `Edit`) name no path and add nothing.
 */
export function sandboxPart(
  rules: readonly SourcedRule[],
  sandbox: SandboxSettings,
  anchors: Anchors,
  additionalDirectories: readonly string[] = [],
): SandboxPolicyPart {
  const hidden: string[] = [];
  const readOnly: string[] = [];
  const writable: string[] = [];
  const allowedDomains: string[] = [];
  const deniedDomains: string[] = [];
  for (const { rule, list } of rules) {
    if (rule.specifier === undefined || list === 'ask') continue;
    if (rule.tool === 'Read' && list === 'deny') hidden.push(ruleGlob(rule.specifier, anchors));
    else if (rule.tool === 'Edit') (list === 'deny' ? readOnly : writable).push(ruleGlob(rule.specifier, anchors));
    else if (rule.tool === 'WebFetch' && rule.kind === 'domain') {
      (list === 'deny' ? deniedDomains : allowedDomains).push(rule.specifier.slice('domain:'.length));
    }
  }
  const { filesystem: fs, network } = sandbox;
  return {
    hidden: [...hidden, ...fs.denyRead],
    readOnly: [...readOnly, ...fs.denyWrite],
    writable: [...writable, ...fs.allowWrite, ...additionalDirectories],
    network: {
      allowedDomains: [...allowedDomains, ...network.allowedDomains],
      deniedDomains: [...deniedDomains, ...network.deniedDomains],
      managedAllowedDomains: network.managedAllowedDomains,
      allowUnixSockets: network.allowUnixSockets,
      ...(network.allowManagedDomainsOnly === undefined ? {} : { allowManagedDomainsOnly: network.allowManagedDomainsOnly }),
      ...(network.allowLocalBinding === undefined ? {} : { allowLocalBinding: network.allowLocalBinding }),
      ...(network.allowAllUnixSockets === undefined ? {} : { allowAllUnixSockets: network.allowAllUnixSockets }),
      ...(network.httpProxyPort === undefined ? {} : { httpProxyPort: network.httpProxyPort }),
      ...(network.socksProxyPort === undefined ? {} : { socksProxyPort: network.socksProxyPort }),
    },
  };
}

/**
 * A Read/Edit rule's path as the absolute glob the sandbox expands, with
 * the rule's own meaning (see `pathPattern` in dsh-rules): `//p` from the
 * root, `~/p` from home, `/p` from the project, `./p` and `p` from the
 * working directory; a pattern without a slash matches a name at any depth
 * below the working directory; a trailing slash is dropped (a directory
 * hides everything under it anyway).
 */
export function ruleGlob(specifier: string, anchors: Anchors): string {
  let base: string;
  let pattern: string;
  let anchored = true;
  if (specifier.startsWith('//')) {
    base = '/';
    pattern = specifier.slice(2);
  } else if (specifier === '~' || specifier.startsWith('~/')) {
    base = anchors.homeDir;
    pattern = specifier.slice(2);
  } else if (specifier.startsWith('/')) {
    base = anchors.projectDir;
    pattern = specifier.slice(1);
  } else {
    base = anchors.cwd;
    pattern = specifier;
    anchored = false;
    while (pattern.startsWith('./') || pattern.startsWith('../')) {
      if (pattern.startsWith('../')) base = resolve(base, '..');
      pattern = pattern.slice(pattern.indexOf('/') + 1);
      anchored = true;
    }
  }
  pattern = pattern.replace(/\/+$/, '');
  if (pattern === '') return base;
  if (!anchored && !pattern.includes('/')) return join(base, '**', pattern);
  return join(base, pattern);
}
