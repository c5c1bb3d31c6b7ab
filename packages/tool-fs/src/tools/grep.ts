import path from 'node:path';
import { defineTool, z } from '@deepseek-ai/dsh-core';
import { FsErrorCode, fsError } from '../errors.js';
import { grepExternal } from '../external.js';
import { failureCard, outputOf, shown } from '../internal/cards.js';
import { breathe, globMatcher, kindOf } from '../internal/directory.js';
import { counted } from '../internal/plural.js';
import { pathResolver } from '../internal/resolve-paths.js';
import type { FsRuntime } from '../internal/runtime.js';
import { looksBinary } from '../internal/text.js';
import { requiredLiteral } from '../search/literal.js';
import { ripgrepCandidates } from '../search/ripgrep.js';
import { readSmallFile, searchBytes } from '../search/search-file.js';
import { type WalkedFile, walkFiles } from '../search/walk.js';

const lines = z.number().int().min(0).max(100);
const input = z.object({
  pattern: z.string().min(1).describe('A JavaScript regular expression, matched against each line.'),
  path: z.string().min(1).optional().describe('A file or directory to search (default: the working directory).'),
  glob: z.string().min(1).optional().describe('Only files whose path matches this glob (e.g. "*.ts", "src/**/*.tsx").'),
  output_mode: z
    .enum(['files_with_matches', 'content', 'count'])
    .optional()
    .describe('files_with_matches (default): matching files; content: matching lines; count: matches per file.'),
  case_insensitive: z.boolean().optional(),
  context: lines.optional().describe('Lines of context before and after each match (content mode).'),
  before: lines.optional().describe('Lines of context before each match (content mode).'),
  after: lines.optional().describe('Lines of context after each match (content mode).'),
  max_results: z.number().int().min(1).optional().describe('At most this many lines (content) or files (other modes).'),
  include_ignored: z.boolean().optional().describe('Also search .git and what .gitignore ignores.'),
});

/** What `grep` returns. */
export interface GrepOutput {
  readonly mode: 'files_with_matches' | 'content' | 'count';
  readonly files?: readonly string[];
  readonly counts?: readonly { readonly path: string; readonly count: number }[];
  readonly content?: string;
  /** Matching lines found (up to the cap). */
  readonly matches: number;
  /** True when the cap stopped the search early. */
  readonly truncated: boolean;
  /** Which engine picked the files to search; the results are the same either way. */
  readonly engine: 'ripgrep' | 'builtin';
}

/** The `grep` tool. */
export function grepTool(rt: FsRuntime) {
  return defineTool({
    name: 'grep',
    description:
      'Search file contents with a JavaScript regular expression, line by line. Skips .git, .gitignored files, binary files and symbolic links. Output modes: files_with_matches (default), content (with line numbers and optional context), count.',
    input,
    parallel: true,
    idempotent: true,
    external: grepExternal,
    resolvePaths: pathResolver(rt, 'path', 'read', true),
    async execute(args, ctx): Promise<GrepOutput> {
      const { signal } = ctx;
      let regex: RegExp;
      try {
        regex = new RegExp(args.pattern, args.case_insensitive === true ? 'i' : '');
      } catch (error) {
        throw fsError(
          FsErrorCode.INVALID_REGEX,
          `the pattern is not a valid JavaScript regular expression: ${error instanceof Error ? error.message : String(error)}`,
          {
            pattern: args.pattern,
          },
        );
      }
      const match = args.glob === undefined ? undefined : globMatcher(args.glob);
      const target = rt.workspace.resolveJudged(args.path ?? '.', 'read');
      const kind = await kindOf(target.real);
      const includeIgnored = args.include_ignored === true;
      const all: WalkedFile[] =
        kind === 'file'
          ? [{ abs: target.real, rel: path.basename(target.real) }]
          : await walkFiles({ workspace: rt.workspace, root: target.root, base: target.real, includeIgnored, signal });
      const files = match === undefined ? all : all.filter((f) => match(f.rel));
      const mode = args.output_mode ?? 'files_with_matches';
      const cap = args.max_results ?? rt.options.maxResults;
      const ignoreCase = args.case_insensitive === true;
      const literal = requiredLiteral(args.pattern);
      const ripgrep = literal === undefined ? undefined : await rt.ripgrep;
      const useRipgrep = ripgrep !== undefined && literal !== undefined && (!ignoreCase || /^[\x20-\x7e]+$/.test(literal));
      const candidates =
        useRipgrep && ripgrep !== undefined && literal !== undefined
          ? await ripgrepCandidates(
              ripgrep,
              literal,
              ignoreCase,
              files.map((f) => f.abs),
              signal,
            )
          : undefined;
      const prefilter = literal !== undefined && !ignoreCase ? Buffer.from(literal, 'utf8') : undefined;
      const before = args.before ?? args.context ?? 0;
      const after = args.after ?? args.context ?? 0;
      const found: string[] = [];
      const counts: { path: string; count: number }[] = [];
      const content: string[] = [];
      let matches = 0;
      let truncated = false;
      let sinceBreath = 0;
      for (const file of files) {
        if (candidates !== undefined && !candidates.has(file.abs)) continue;
        sinceBreath += 1;
        if (sinceBreath >= 64) {
          sinceBreath = 0;
          await breathe(signal);
        }
        const bytes = readSmallFile(file.abs, rt.options.maxEditBytes, (real) => rt.workspace.allowsHardLinks(real));
        if (typeof bytes === 'string' || looksBinary(bytes)) continue;
        const hit = searchBytes(bytes, regex, prefilter, mode === 'content');
        if (hit === undefined) continue;
        if (mode !== 'content') {
          if (found.length >= cap) {
            truncated = true;
            break;
          }
          matches += hit.matched.length;
          found.push(file.abs);
          counts.push({ path: file.abs, count: hit.matched.length });
          continue;
        }
        const room = cap - matches;
        if (room <= 0) {
          truncated = true;
          break;
        }
        const shownLines = hit.matched.slice(0, room);
        if (shownLines.length < hit.matched.length) truncated = true;
        matches += shownLines.length;
        found.push(file.abs);
        content.push(...contentLines(file.abs, hit.lines ?? [], shownLines, before, after, rt.options.maxLineLength, content.length > 0));
        if (truncated) break;
      }
      const engine = candidates === undefined ? 'builtin' : 'ripgrep';
      if (mode === 'files_with_matches') return { mode, files: found, matches, truncated, engine };
      if (mode === 'count') return { mode, counts, matches, truncated, engine };
      return { mode, content: content.join('\n'), files: found, matches, truncated, engine };
    },
    present: {
      presentCall: (args) => ({
        title: `Grep ${shown(args.pattern, 80)}`,
        summary: `in ${shown(args.path ?? '.')}${args.glob === undefined ? '' : ` (${shown(args.glob)})`}`,
      }),
      presentResult: (args, outcome) => {
        const failed = failureCard(`Grep ${args.pattern}`, outcome);
        if (failed !== undefined) return failed;
        const out = outputOf(outcome);
        const files = Array.isArray(out.files) ? out.files.length : Array.isArray(out.counts) ? out.counts.length : 0;
        const body = typeof out.content === 'string' ? out.content : Array.isArray(out.files) ? out.files.join('\n') : undefined;
        return {
          title: `Grep ${args.pattern}`,
          summary: `${counted(Number(out.matches), 'matching line')} in ${counted(files, 'file')}${out.truncated === true ? ' (capped)' : ''}`,
          ...(body === undefined ? {} : { body: body.length > 4000 ? `${body.slice(0, 4000)}\n…` : body }),
        };
      },
    },
  });
}

/** `path:N:text` for matches and `path-N-text` for context, `--` between separate groups. */
function contentLines(
  file: string,
  lines: readonly string[],
  matched: readonly number[],
  before: number,
  after: number,
  maxLength: number,
  separateFromPrevious: boolean,
): string[] {
  const out: string[] = [];
  const isMatch = new Set(matched);
  let last = 0;
  const cut = (text: string): string => (text.length > maxLength ? `${text.slice(0, maxLength)}… [line cut]` : text);
  for (const n of matched) {
    const from = Math.max(1, n - before, last + 1);
    const to = Math.min(lines.length, n + after);
    if ((before > 0 || after > 0) && (last > 0 ? from > last + 1 : separateFromPrevious)) out.push('--');
    for (let i = from; i <= to; i += 1) {
      if (i <= last) continue;
      if (i > n && isMatch.has(i)) break;
      out.push(`${file}${isMatch.has(i) ? ':' : '-'}${i}${isMatch.has(i) ? ':' : '-'}${cut(lines[i - 1] ?? '')}`);
      last = i;
    }
  }
  return out;
}
