// Where the time of a tool-fs `write` and `edit` of a 4 KB file goes. Each stage is a tool on the same
// host as tool-fs, with the real tool's definition (input schema, resolvePaths, cards) and a body that
// runs the real tool's code up to and including that stage (tool-fs's own internals, from dist). Every
// round runs each prefix once, in a rotating order; a stage's cost is the difference between the
// medians of its prefix and the one before, in wall time and in CPU time of every thread (fsync mostly
// waits on the disk, so it shows in wall time more than in CPU). The last line of each table is the
// real tool. Medians of a noisy machine: a stage of a few µs can come out slightly negative.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { median } from '../../../scripts/bench/interleave.mjs';
import { toolFs } from '../dist/index.js';
import { applyEdits } from '../dist/internal/apply-edits.js';
import { writeAtomic } from '../dist/internal/atomic-write.js';
import { readCurrent, sha256Of } from '../dist/internal/current-file.js';
import { observe, passGate } from '../dist/internal/mutation.js';
import { withPinned } from '../dist/internal/open-file.js';
import { withPathLock } from '../dist/internal/path-lock.js';
import { decodeStrict, shapeOf, toDiskText, toWorkingInput, toWorkingText } from '../dist/internal/text.js';
import { parseToolFsOptions } from '../dist/options.js';
import { ReadLedger } from '../dist/read-ledger.js';
import { editTool } from '../dist/tools/edit.js';
import { writeTool } from '../dist/tools/write.js';
import { Workspace } from '../dist/workspace.js';

const writeStages = ['open', 'read + hash', 'gate', 'temp write + rename', 'fsync', 'sha256 + fs/observed'];
const editStages = ['open', 'read + hash', 'gate', 'decode + apply', 'temp write + rename', 'fsync', 'sha256 + fs/observed'];

/**
 * The body of `kind` (write or edit) cut short after `stage`. The file's own bytes are written back
 * (same size, same cost), so the hash the read-before-edit ledger holds stays valid for the next round.
 */
function bodyUpTo(rt, kind, stage) {
  const stages = kind === 'write' ? writeStages : editStages;
  const reached = (name) => stages.indexOf(name) <= stages.indexOf(stage);
  return async (args, ctx) => {
    const target = rt.workspace.resolveJudged(args.file_path, 'write');
    return withPathLock(target.real, () =>
      withPinned(rt.workspace, target, async (pinned) => {
        if (!reached('read + hash')) return {};
        const keepBytes = kind === 'edit';
        const current = await readCurrent(pinned, target.real, { keepBytes, maxBytes: rt.options.maxEditBytes, signal: ctx.signal });
        if (!reached('gate')) return {};
        await passGate(ctx, kind === 'edit' ? 'fs/edit-intent' : 'fs/write-intent', target.real, current.sha256);
        if (kind === 'edit' && reached('decode + apply')) {
          const raw = decodeStrict(current.bytes, target.real);
          const shape = shapeOf(raw);
          const edit = { old_string: toWorkingInput(args.old_string, shape), new_string: toWorkingInput(args.new_string, shape) };
          Buffer.from(toDiskText(applyEdits(toWorkingText(raw, shape), [edit], target.real).text, shape), 'utf8');
        }
        if (!reached('temp write + rename')) return {};
        const bytes = kind === 'edit' ? current.bytes : Buffer.from(args.content, 'utf8');
        const keep = { mode: current.mode, uid: current.uid, gid: current.gid };
        const mtimeMs = await writeAtomic(pinned.dir, pinned.name, bytes, keep, reached('fsync'));
        if (!reached('sha256 + fs/observed')) return {};
        const observed = { state: 'present', path: target.real, sha256: sha256Of(bytes), size: bytes.length, mtimeMs, complete: true };
        await observe(ctx, observed);
        return {};
      }),
    );
  };
}

/** The prefix tools (`stage_<kind>_<i>`), each with the real tool's definition and a cut-short body. */
function stageTools(rt) {
  const tools = [];
  for (const [kind, base, stages] of [
    ['write', writeTool(rt), writeStages],
    ['edit', editTool(rt), editStages],
  ]) {
    const nothing = { ...base, name: `stage_${kind}_0`, execute: async () => ({}) };
    tools.push({ kind, stage: 'pipeline (empty body)', tool: nothing });
    for (const [i, stage] of stages.entries()) {
      tools.push({ kind, stage, tool: { ...base, name: `stage_${kind}_${i + 1}`, execute: bodyUpTo(rt, kind, stage) } });
    }
  }
  return tools;
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Times each `[label, () => Promise]` once per round for `rounds` rounds, the order rotating each round,
 * and resolves each one's median wall and CPU ms.
 */
async function stageMedians(entries, rounds) {
  const wall = entries.map(() => []);
  const cpu = entries.map(() => []);
  for (let r = 0; r < rounds; r += 1) {
    for (let k = 0; k < entries.length; k += 1) {
      const j = (k + r) % entries.length;
      const c = cpuMs();
      const w = performance.now();
      await entries[j][1]();
      wall[j].push(performance.now() - w);
      cpu[j].push(cpuMs() - c);
    }
  }
  return entries.map(([label], j) => ({ label, wall: median(wall[j]), cpu: median(cpu[j]) }));
}

/** Prints one stage table: each prefix's medians and what its stage adds. */
function printStages(title, rows) {
  console.log(title);
  console.log(`  ${'stage'.padEnd(34)} ${'wall µs'.padStart(8)} ${'+wall'.padStart(7)} ${'CPU µs'.padStart(8)} ${'+CPU'.padStart(7)}`);
  let previous;
  for (const r of rows) {
    const dw = previous === undefined ? r.wall : r.wall - previous.wall;
    const dc = previous === undefined ? r.cpu : r.cpu - previous.cpu;
    const us = (x) => (x * 1000).toFixed(0);
    console.log(`  ${r.label.padEnd(34)} ${us(r.wall).padStart(8)} ${us(dw).padStart(7)} ${us(r.cpu).padStart(8)} ${us(dc).padStart(7)}`);
    previous = r;
  }
}

/**
 * Prints the stage tables of `write` and `edit` of a 4 KB file in the scratch directory `base`. The
 * prefixes write the file's own content back and `edit` toggles one word, so the read-before-edit
 * ledger (fed by the real tools' `fs/observed`) stays valid.
 */
export async function stageBench(base, rounds = 300) {
  const file = path.join(base, 'stages-4k.txt');
  const content = `alpha\n${`${'a'.repeat(63)}\n`.repeat(63)}`;
  await writeFile(file, content);
  const options = { roots: [base], cwd: base };
  const rt = { workspace: Workspace.open(base, [base], []), options: parseToolFsOptions(options), ledger: new ReadLedger() };
  const stages = stageTools(rt);
  const plugin = {
    name: 'tool-fs-stages',
    version: '0.0.0',
    register: (host) => {
      for (const s of stages) host.tools.register(s.tool);
    },
  };
  const t = await createTestHost({ plugins: [toolFs(options), plugin] });
  const call = async (name, args) => {
    const outcome = await t.call(name, args);
    if (outcome.status !== 'ok') throw new Error(`${name}: ${JSON.stringify(outcome)}`);
  };
  await call('read', { file_path: file });
  let edits = 0;
  // The real edit toggles the word back and forth; the prefixes apply the same edit without keeping it.
  const toggle = () => (edits++ % 2 ? { old_string: 'omega', new_string: 'alpha' } : { old_string: 'alpha', new_string: 'omega' });
  let current = 'alpha';
  const realEdit = async () => {
    const e = toggle();
    await call('edit', { file_path: file, ...e });
    current = e.new_string;
  };
  for (const kind of ['write', 'edit']) {
    const entries = stages
      .filter((s) => s.kind === kind)
      .map((s) => [
        s.stage,
        kind === 'write'
          ? () => call(s.tool.name, { file_path: file, content: `${current}${content.slice(5)}` })
          : () => call(s.tool.name, { file_path: file, old_string: current, new_string: current === 'alpha' ? 'omega' : 'alpha' }),
      ]);
    entries.push([
      `the real ${kind} (+ its result${kind === 'edit' ? ': a diff' : ''})`,
      kind === 'write' ? () => call('write', { file_path: file, content: `${current}${content.slice(5)}` }) : realEdit,
    ]);
    await stageMedians(entries, 20);
    printStages(
      `${kind} of a 4 KB file, stage by stage (median of ${rounds} rotating rounds; each line adds one stage)`,
      await stageMedians(entries, rounds),
    );
  }
}
