import type { SessionAnchors } from '@deepseek-ai/dsh-core';
import { type Anchors, defaultAnchors } from '@deepseek-ai/dsh-rules';
import type { PermissionsOptions } from './options.js';

/**
 * The anchors rules and tool paths hang from: the host's (`host.anchors`)
 * unless the options name one. Options keep their old meaning as explicit
 * overrides: `cwd` alone is the project too, `projectDir` alone the working
 * directory too, as before hosts had anchors. Without a host (before
 * registration) the process's directory and the user's home fill in.
 */
export function anchorsOf(options: PermissionsOptions, host?: SessionAnchors): Anchors {
  const given = options.cwd ?? options.projectDir;
  const homeDir = options.homeDir ?? host?.homeDir;
  return defaultAnchors({
    cwd: given ?? host?.cwd ?? process.cwd(),
    projectDir: options.projectDir ?? given ?? host?.projectDir ?? process.cwd(),
    ...(homeDir === undefined ? {} : { homeDir }),
  });
}

/** True when two sets of anchors name the same directories. */
export function sameAnchors(a: Anchors, b: Anchors): boolean {
  return a.cwd === b.cwd && a.projectDir === b.projectDir && a.homeDir === b.homeDir;
}
