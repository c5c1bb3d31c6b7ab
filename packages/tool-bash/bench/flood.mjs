// Child process of run.mjs: runs one command through the tool and reports its own peak RSS.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { toolHost } from './common.mjs';

const [mode, cwd] = process.argv.slice(2);
const run = await toolHost({ cwd, sandbox: { provider: 'none' }, maxOutputBytes: 256 * 1024 * 1024, defaultTimeoutMs: 120_000 });
const command = mode === 'flood' ? 'yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 209715200' : 'true';
const result = await run(command);
if (result.fullOutputPath) rmSync(dirname(result.fullOutputPath), { recursive: true, force: true });
const peakMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify({ peakMb, bytes: result.bytes.stdout, truncated: result.truncated })}\n`);
