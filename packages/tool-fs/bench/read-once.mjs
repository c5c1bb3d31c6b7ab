// One `read` with limit 2000 in this process; prints its time and the process's peak RSS.
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { toolFs } from '../dist/index.js';

const [root, file] = process.argv.slice(2);
const t = await createTestHost({ plugins: [toolFs({ roots: [root], cwd: root })] });
const start = performance.now();
const outcome = await t.call('read', { file_path: file, limit: 2000 });
const ms = performance.now() - start;
if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome));
console.log(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS }));
