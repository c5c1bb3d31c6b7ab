import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/**
 * Secrets hidden from sandboxed commands by default: `~` is the home
 * directory (`sandbox.home`). Each that exists is replaced by an empty,
 * read-only directory or an empty file.
 */
export const defaultDenyRead: readonly string[] = Object.freeze([
  '~/.ssh',
  '~/.gnupg',
  '~/.aws',
  '~/.azure',
  '~/.config/gcloud',
  '~/.kube',
  '~/.docker/config.json',
  '~/.config/gh',
  '~/.config/hub',
  '~/.git-credentials',
  '~/.netrc',
  '~/.npmrc',
  '~/.yarnrc.yml',
  '~/.pypirc',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.gem/credentials',
  '~/.terraform.d/credentials.tfrc.json',
  '~/.vault-token',
  '~/.password-store',
  '~/.local/share/keyrings',
  '~/.claude/.credentials.json',
  '~/.codex/auth.json',
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/shadow-',
  '/etc/gshadow-',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ed25519_key',
  '/etc/ssh/ssh_host_dsa_key',
]);

/** One path to hide, resolved, and what to put over it. */
export interface Mask {
  readonly path: string;
  readonly directory: boolean;
}

/** Expands a leading `~/` (or a lone `~`) to `home`; other paths are kept (relative ones are dropped by `masksOf`). */
export function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  return path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

/**
 * The masks for the deny-read paths that exist now, by their real path (a
 * mount lands on the target of a symlink). Checked per call: a secret
 * created mid-session is hidden from the next command on.
 */
export function masksOf(paths: readonly string[]): Mask[] {
  const masks = new Map<string, Mask>();
  for (const path of paths) {
    if (!isAbsolute(path)) continue;
    let real: string;
    let directory: boolean;
    try {
      real = realpathSync(path);
      directory = statSync(real).isDirectory();
    } catch {
      continue; // missing (or unreadable to us): nothing to hide
    }
    masks.set(real, { path: real, directory });
  }
  return [...masks.values()];
}
