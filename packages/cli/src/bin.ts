#!/usr/bin/env node
// The `dsh` executable: wires the process to runCli and exits with its code.
import { runCli } from './cli.js';
import { colourWanted, styleFor } from './render/style.js';

// `dsh log … | head` closes the pipe early: that is the reader being done, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const isTTY = process.stdout.isTTY === true;
const code = await runCli(process.argv.slice(2), {
  stdout: { write: (text) => void process.stdout.write(text) },
  stderr: { write: (text) => void process.stderr.write(text) },
  style: styleFor(colourWanted(isTTY, process.env, false)),
  isTTY,
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
});
process.exitCode = code;
