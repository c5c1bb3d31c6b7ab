#!/usr/bin/env node
// The `dsh` executable: wires the process to runCli and exits with its code.
import { runCli } from './cli.js';
import { colourWanted, styleFor } from './render/style.js';

const isTTY = process.stdout.isTTY === true;
const code = await runCli(process.argv.slice(2), {
  stdout: { write: (text) => void process.stdout.write(text) },
  stderr: { write: (text) => void process.stderr.write(text) },
  style: styleFor(colourWanted(isTTY, process.env, false)),
  isTTY,
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
