import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

interface Layer {
  readonly dir: string;
  readonly rules: Ignore;
}

/**
 * The `.gitignore` files that apply beneath a directory: those of every
 * directory from the workspace root down, each matched relative to its own
 * directory, as git does. `.git` itself is always ignored.
 */
export class IgnoreRules {
  readonly #layers: readonly Layer[];

  private constructor(layers: readonly Layer[]) {
    this.#layers = layers;
  }

  /** The rules in force at `dir`: `.gitignore` files from `root` down to `dir`. */
  static async at(root: string, dir: string): Promise<IgnoreRules> {
    const chain: string[] = [];
    let current = dir;
    for (;;) {
      chain.unshift(current);
      if (current === root) break;
      const parent = path.dirname(current);
      if (parent === current || !current.startsWith(root)) break;
      current = parent;
    }
    let rules = new IgnoreRules([]);
    for (const d of chain) rules = await rules.enter(d);
    return rules;
  }

  /** The rules in force inside `dir` (a child of the last directory entered). */
  async enter(dir: string): Promise<IgnoreRules> {
    let text: string;
    try {
      text = await readFile(path.join(dir, '.gitignore'), 'utf8');
    } catch {
      return this;
    }
    return new IgnoreRules([...this.#layers, { dir, rules: ignore().add(text) }]);
  }

  /** True when the file or directory at the absolute path `p` is ignored. */
  ignores(p: string, isDirectory: boolean): boolean {
    if (path.basename(p) === '.git') return true;
    for (const layer of this.#layers) {
      if (p === layer.dir || !p.startsWith(layer.dir + path.sep)) continue;
      const rel = path.relative(layer.dir, p).split(path.sep).join('/');
      if (layer.rules.ignores(isDirectory ? `${rel}/` : rel)) return true;
    }
    return false;
  }
}
