// Tools for the resume tests, shared by the process that crashes and the test that resumes.
// Plain JavaScript against core's build, so a child `node` runs it as is.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineTool, z } from '../../dist/index.js';

/** `read_text` (idempotent): a file's text; with `waitFor`, first marks `<waitFor>.waiting` and waits for that file. */
export const readText = defineTool({
  name: 'read_text',
  description: 'Reads a text file.',
  parallel: true,
  idempotent: true,
  input: z.object({ path: z.string(), waitFor: z.string().optional() }),
  async execute(args, ctx) {
    if (args.waitFor !== undefined) {
      writeFileSync(`${args.waitFor}.waiting`, '');
      while (!existsSync(args.waitFor)) await sleep(20, undefined, { signal: ctx.signal });
    }
    return { text: readFileSync(args.path, 'utf8') };
  },
});

/** `run_command` (not idempotent): a real child process that writes its pid to `marker`, then runs until killed. */
export const runCommand = defineTool({
  name: 'run_command',
  description: 'Runs a command.',
  parallel: true,
  input: z.object({ marker: z.string() }),
  execute: (args, ctx) =>
    new Promise((resolve, reject) => {
      // Written aside and renamed, so the marker never exists empty: a reader of an empty file got pid 0.
      const script =
        'const fs = require("fs"); const m = process.argv[1]; fs.writeFileSync(m + ".tmp", String(process.pid)); ' +
        'fs.renameSync(m + ".tmp", m); setInterval(() => {}, 1000);';
      const child = spawn(process.execPath, ['-e', script, args.marker], { stdio: 'ignore', signal: ctx.signal });
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code }));
    }),
});
