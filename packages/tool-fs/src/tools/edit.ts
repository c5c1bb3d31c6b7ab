import { type Card, defineTool, type Outcome, type ToolContext, z } from '@deepseek-ai/dsh-core';
import { createTwoFilesPatch } from 'diff';
import { FsErrorCode, fsError } from '../errors.js';
import { editExternal, multiEditExternal } from '../external.js';
import { applyEdits, type EditSpec } from '../internal/apply-edits.js';
import { failureCard, outputOf, shown } from '../internal/cards.js';
import { readCurrent } from '../internal/current-file.js';
import { unifiedDiff } from '../internal/diff.js';
import { commitWrite, passGate } from '../internal/mutation.js';
import { type PinnedTarget, withPinned } from '../internal/open-file.js';
import { withPathLock } from '../internal/path-lock.js';
import { counted } from '../internal/plural.js';
import { pathResolver } from '../internal/resolve-paths.js';
import type { FsRuntime } from '../internal/runtime.js';
import { decodeStrict, looksBinary, shapeOf, toDiskText, toWorkingInput, toWorkingText } from '../internal/text.js';
import type { ResolvedPath } from '../workspace.js';

const filePath = z.string().min(1).describe('The file to change: absolute, or relative to the working directory.');
const editFields = {
  old_string: z.string().describe('The exact text to replace (whitespace and indentation included), without line-number prefixes.'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence; otherwise old_string must occur exactly once.'),
};

/** What `edit` and `multi_edit` return. */
export interface EditOutput {
  readonly path: string;
  /** Replacements made by each edit, in order. */
  readonly replacements: readonly number[];
  /** A unified diff of the change. */
  readonly diff: string;
  readonly sha256: string;
}

/** The `edit` tool: one exact replacement in a file this session has read. */
export function editTool(rt: FsRuntime) {
  return defineTool({
    name: 'edit',
    description:
      'Replace old_string with new_string in a file you have read. old_string must match exactly once unless replace_all is set. Line endings, BOM, final newline and file mode are kept.',
    input: z.object({ file_path: filePath, ...editFields }),
    external: editExternal,
    resolvePaths: pathResolver(rt, 'file_path', 'write'),
    execute: (args, ctx) => editFile(rt, ctx, args.file_path, [args]),
    present: {
      presentCall: (args) => ({
        title: `Edit ${shown(args.file_path)}`,
        summary: args.replace_all === true ? 'replace every occurrence' : 'replace one occurrence',
        body: snippetDiff(args.file_path, [args]),
        format: 'diff',
      }),
      presentResult: (args, outcome) => resultCard(`Edit ${args.file_path}`, outcome),
    },
  });
}

/** The `multi_edit` tool: several edits to one file, applied in order, all or none. */
export function multiEditTool(rt: FsRuntime) {
  return defineTool({
    name: 'multi_edit',
    description:
      'Apply several edits to one file you have read, in order, each on the result of the one before. All apply or none do; the error names the edit that failed.',
    input: z.object({ file_path: filePath, edits: z.array(z.object(editFields)).min(1) }),
    external: multiEditExternal,
    resolvePaths: pathResolver(rt, 'file_path', 'write'),
    execute: (args, ctx) => editFile(rt, ctx, args.file_path, args.edits),
    present: {
      presentCall: (args) => {
        const edits = Array.isArray(args.edits) ? args.edits : [];
        return {
          title: `Edit ${shown(args.file_path)}`,
          summary: counted(edits.length, 'edit'),
          body: snippetDiff(args.file_path, edits),
          format: 'diff',
        };
      },
      presentResult: (args, outcome) => resultCard(`Edit ${args.file_path}`, outcome),
    },
  });
}

async function editFile(rt: FsRuntime, ctx: ToolContext, file: string, edits: readonly EditSpec[]): Promise<EditOutput> {
  const target = rt.workspace.resolveJudged(file, 'write');
  return withPathLock(target.real, () => withPinned(rt.workspace, target, (pinned) => editPinned(rt, ctx, target, pinned, edits)));
}

async function editPinned(
  rt: FsRuntime,
  ctx: ToolContext,
  target: ResolvedPath,
  pinned: PinnedTarget,
  edits: readonly EditSpec[],
): Promise<EditOutput> {
  const current = await readCurrent(pinned, target.real, { keepBytes: true, maxBytes: rt.options.maxEditBytes, signal: ctx.signal });
  if (!current.exists || current.bytes === undefined) {
    throw fsError(FsErrorCode.NOT_FOUND, `${target.real} does not exist; use write to create it`, { path: target.real });
  }
  if (looksBinary(current.bytes)) {
    throw fsError(FsErrorCode.BINARY_FILE, `${target.real} looks like a binary file (it holds NUL bytes) and cannot be edited as text`, {
      path: target.real,
    });
  }
  await passGate(ctx, 'fs/edit-intent', target.real, current.sha256);
  const raw = decodeStrict(current.bytes, target.real);
  const shape = shapeOf(raw);
  const before = toWorkingText(raw, shape);
  const working = edits.map((e) => ({
    old_string: toWorkingInput(e.old_string, shape),
    new_string: toWorkingInput(e.new_string, shape),
    replace_all: e.replace_all,
  }));
  const applied = applyEdits(before, working, target.real);
  const bytes = Buffer.from(toDiskText(applied.text, shape), 'utf8');
  if (bytes.equals(current.bytes)) {
    throw fsError(FsErrorCode.NO_CHANGE, `the edits leave ${target.real} exactly as it was`, { path: target.real });
  }
  const previous = rt.ledger.get(target.real);
  const complete = previous?.state === 'present' && previous.complete;
  const written = await commitWrite(ctx, rt, target, pinned, current, bytes, complete);
  const diff = unifiedDiff(target.real, before, toWorkingText(toDiskText(applied.text, shape), shape));
  return { path: target.real, replacements: applied.replacements, diff, sha256: written.sha256 };
}

function snippetDiff(file: unknown, edits: readonly unknown[]): string {
  const name = typeof file === 'string' ? file : 'file';
  return edits
    .map((e) => {
      const edit = (e ?? {}) as Record<string, unknown>;
      const oldText = typeof edit.old_string === 'string' ? edit.old_string : '';
      const newText = typeof edit.new_string === 'string' ? edit.new_string : '';
      return createTwoFilesPatch(name, name, ensureNewline(oldText), ensureNewline(newText), '', '', { context: 3 });
    })
    .join('\n');
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function resultCard(title: string, outcome: Outcome): Card {
  const failed = failureCard(title, outcome);
  if (failed !== undefined) return failed;
  const out = outputOf(outcome);
  const count = Array.isArray(out.replacements) ? out.replacements.reduce((sum: number, n) => sum + Number(n), 0) : 0;
  return {
    title: `Edit ${String(out.path)}`,
    summary: counted(count, 'replacement'),
    body: typeof out.diff === 'string' ? out.diff : '',
    format: 'diff',
  };
}
