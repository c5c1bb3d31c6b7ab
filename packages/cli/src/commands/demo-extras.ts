import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AssistantTurn, Model } from '@deepseek-ai/dsh-agent';

/** The demo's MCP server, built beside this file: a notes list over stdio, written with the official SDK. */
export const notesServerPath: string = fileURLToPath(new URL('../mcp/notes-server.js', import.meta.url));

/** Writes the demo's project skill, `.claude/skills/release-notes/`, with a bundled template. */
export function addDemoSkill(root: string): void {
  const dir = join(root, '.claude', 'skills', 'release-notes');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'SKILL.md'),
    `---
name: release-notes
description: Writes the release notes of this project from its changes. Use when asked for release notes.
---
Fill in template.md from this folder with the changes since the last release, one line each.
`,
  );
  writeFileSync(join(dir, 'template.md'), '# Release notes\n\n- …\n');
}

/**
 * The subagent's model, scripted: it reads the README and tries `rm -rf src`
 * in one turn, then answers. Turns are chosen by how many answers it gave
 * already, so it also works when the history is replayed.
 */
export function scriptedReviewer(): Model {
  return (request) => {
    const turn = request.messages.filter((m) => m.role === 'assistant').length;
    const answer: AssistantTurn =
      turn === 0
        ? {
            text: 'I will read the README, and clear out src to start fresh.',
            calls: [
              { id: 'r1', name: 'read', args: '{"file_path":"README.md"}' },
              { id: 'r2', name: 'bash', args: '{"command":"rm -rf src"}' },
            ],
            stop: 'tool-use',
            model: 'scripted-reviewer',
            usage: { inputTokens: 120, outputTokens: 30 },
          }
        : {
            text: 'The README explains how to run the greeter. I could not clear src: a hook blocks rm -rf, so I left it alone.',
            calls: [],
            stop: 'end',
            model: 'scripted-reviewer',
            usage: { inputTokens: 260, outputTokens: 28 },
          };
    return Promise.resolve(answer);
  };
}

/** A page server on 127.0.0.1 for the demo's `web_fetch`: an article with navigation and a script around it. */
export async function startDemoPage(): Promise<{ readonly url: string; readonly port: number; close(): Promise<void> }> {
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Greeter 2.0</title>
<script>track()</script></head><body><nav><a href="/">Home</a> · <a href="/blog">Blog</a></nav>
<article><h1>Greeter 2.0 is out</h1><p>Greeter now takes the <strong>name</strong> to greet as its first argument.</p>
<p>Upgrade with <code>npm install greeter@2</code>.</p></article><footer>© Greeter authors</footer></body></html>`;
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  // Never what keeps the process alive, should the demo end early.
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/news/greeter-2`,
    port,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
