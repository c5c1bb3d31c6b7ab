import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkDefinition, parseDefinitionFile, type SubagentDefinition } from './definition.js';
import { SubagentErrorCode, type SubagentProblem } from './errors.js';

/** The subagent types found, by precedence, and every problem met. */
export interface SubagentCatalog {
  /** One definition per name: the one of highest precedence. */
  readonly agents: readonly SubagentDefinition[];
  readonly problems: readonly SubagentProblem[];
  /** The definition named `name`, if any. */
  get(name: string): SubagentDefinition | undefined;
}

/** Where definitions are read from, highest precedence first (after those given in code). */
export interface CatalogSources {
  /** Definitions given in code: highest precedence. */
  readonly agents: readonly Readonly<Record<string, unknown>>[];
  /** Folders of `*.md` files, highest precedence first. */
  readonly roots: readonly { readonly path: string; readonly source: string }[];
  readonly maxDefinitionBytes: number;
  /** The definition used when a `task` call names no type (and no definition of that name was found). */
  readonly builtIn: SubagentDefinition;
}

/**
 * Loads the definitions: those given in code, then each root's `*.md` files
 * in name order, then the built-in one. A name already taken by a source of
 * higher precedence is shadowed silently (a project's `reviewer` overrides
 * the user's); two of one source sharing a name is a `SUBAGENT_DUPLICATE_NAME`
 * problem, the first by file name kept. Never throws for what it finds on disk.
 */
export async function loadCatalog(sources: CatalogSources): Promise<SubagentCatalog> {
  const problems: SubagentProblem[] = [];
  const byName = new Map<string, SubagentDefinition>();
  const add = (found: readonly SubagentDefinition[]): void => {
    const here = new Set<string>();
    for (const definition of found) {
      if (here.has(definition.name)) {
        const path = definition.file ?? definition.source;
        problems.push({
          code: SubagentErrorCode.DUPLICATE_NAME,
          message: `${path}: another ${definition.source} definition is named "${definition.name}" and comes first; this one is not used`,
          path,
          skipped: true,
        });
        continue;
      }
      here.add(definition.name);
      if (!byName.has(definition.name)) byName.set(definition.name, definition);
    }
  };
  add(
    sources.agents.flatMap((data, i) => {
      const found = checkDefinition(data, { path: `options.agents[${i}]`, source: 'code' }, problems);
      return found === undefined ? [] : [found];
    }),
  );
  for (const root of sources.roots) add(await definitionsOfRoot(root, sources.maxDefinitionBytes, problems));
  add([sources.builtIn]);
  const agents = Object.freeze([...byName.values()]);
  return Object.freeze({ agents, problems: Object.freeze(problems), get: (name: string) => byName.get(name) });
}

async function definitionsOfRoot(
  root: { readonly path: string; readonly source: string },
  maxBytes: number,
  problems: SubagentProblem[],
): Promise<SubagentDefinition[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(root.path, { withFileTypes: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      problems.push({
        code: SubagentErrorCode.ROOT_UNREADABLE,
        message: `${root.path}: the agents folder cannot be read (${code ?? 'unknown error'})`,
        path: root.path,
        skipped: true,
      });
    }
    return [];
  }
  const names = entries
    .filter((e) => e.name.endsWith('.md') && !e.name.startsWith('.') && (e.isFile() || e.isSymbolicLink()))
    .map((e) => e.name)
    .sort();
  const found: SubagentDefinition[] = [];
  for (const name of names) {
    const file = join(root.path, name);
    const text = await readBounded(file, maxBytes, problems);
    if (text === undefined) continue;
    const definition = parseDefinitionFile(text, { path: file, source: root.source, file }, problems);
    if (definition !== undefined) found.push(definition);
  }
  return found;
}

async function readBounded(file: string, maxBytes: number, problems: SubagentProblem[]): Promise<string | undefined> {
  const skip = (code: SubagentErrorCode, why: string): undefined => {
    problems.push({ code, message: `${file}: ${why}`, path: file, skipped: true });
    return undefined;
  };
  try {
    const info = await stat(file);
    if (!info.isFile()) return skip(SubagentErrorCode.UNREADABLE, 'is not a regular file');
    if (info.size > maxBytes) return skip(SubagentErrorCode.TOO_LARGE, `has ${info.size} bytes, more than the ${maxBytes} allowed`);
    const bytes = await readFile(file);
    if (bytes.length > maxBytes) return skip(SubagentErrorCode.TOO_LARGE, `has more than the ${maxBytes} bytes allowed`);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    const code = (error as { code?: string }).code;
    return skip(SubagentErrorCode.UNREADABLE, code === undefined ? 'is not UTF-8 text' : `cannot be read (${code})`);
  }
}
