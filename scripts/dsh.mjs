#!/usr/bin/env node
// `pnpm dsh …` from anywhere in the repository: pnpm runs scripts in the repository root, so this
// moves back to the directory the command was typed in (INIT_CWD) before starting the CLI, and
// `pnpm dsh replay x.jsonl` reads ./x.jsonl and checks the caller's project, not the dsh repo.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'cli', 'dist', 'bin.js');
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
await import(pathToFileURL(bin).href);
