import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventSeen, liveSession } from './fixtures/live-session.js';
import { createInbox, type Inbox } from './inbox.js';

// Attacker-controlled strings: each would run script or inject markup if rendered as HTML.
const payloads = {
  command: `echo "<img src=x onerror=alert('args')>" && cat '<script>alert(1)</script>.txt'`,
  file: `/tmp/"><svg onload=alert('file')>.ts`,
};

let browser: Browser;
let inbox: Inbox;
let url: string;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking'],
  });
  inbox = createInbox();
  url = await inbox.listen();
});
afterAll(async () => {
  await browser?.close();
  await inbox?.close();
});

describe('the inbox in a real browser', () => {
  it('shows a live session’s cards, takes an answer, and the agent continues; payloads stay inert', async () => {
    const host = await liveSession(inbox, 'demo-session');
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // Page-side code as text: this package compiles without the DOM's types.
    await page.addInitScript(
      "window.violations = []; document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));",
    );
    await page.goto(url);
    expect(new URL(page.url()).search).toBe('');
    await page.click('[data-session="demo-session"]');

    const first = host.runStep({ calls: [{ id: 'call-1', name: 'shell', args: { command: 'git status' } }] });
    await page.locator('[data-call="call-1"].waiting').waitFor();
    await page.locator('[data-call="call-1"] [data-action="allow-once"]').click();
    expect((await first).results[0]?.outcome).toMatchObject({ status: 'ok', output: 'ran: git status' });
    await page.locator('[data-call="call-1"] .st-ok').waitFor();
    await expect(page.locator('[data-call="call-1"] .answer').textContent()).resolves.toContain('by token holder');
    // The card names the browser; the event keeps the whole user agent.
    await expect(page.locator('[data-call="call-1"] .answer').textContent()).resolves.toMatch(/from 127\.0\.0\.1 \(Chrome\) after/);
    const recorded = host.events.list().find((e) => (e.type as string) === 'inbox/answer' && e.call === 'call-1');
    expect((recorded?.data as { from?: string } | undefined)?.from).toMatch(/^127\.0\.0\.1 \(Mozilla\/5\.0 .*Chrome\//);

    const second = host.runStep({ calls: [{ id: 'call-2', name: 'shell', args: { command: payloads.command } }] });
    await page.locator('[data-call="call-2"].waiting').waitFor();
    await expect(page.locator('[data-call="call-2"] .command').textContent()).resolves.toBe(`$ ${payloads.command}`);
    await page.locator('[data-call="call-2"]').focus();
    await page.keyboard.press('d');
    await page.keyboard.type(`no: <b onmouseover=alert(3)>${payloads.file}</b>`);
    await page.keyboard.press('Enter');
    expect((await second).results[0]?.outcome).toMatchObject({ status: 'denied', code: 'APPROVAL_REJECTED' });
    await page.locator('[data-call="call-2"] .st-denied').waitFor();

    // The README's screenshots are refreshed only when asked (DSH_INBOX_SCREENSHOTS=1): a test run leaves the tree as it was.
    const shots = process.env.DSH_INBOX_SCREENSHOTS
      ? new URL('../docs/', import.meta.url).pathname
      : await mkdtemp(join(tmpdir(), 'inbox-shots-'));
    await mkdir(shots, { recursive: true });
    const third = host.runStep({ calls: [{ id: 'call-3', name: 'shell', args: { command: `touch '${payloads.file}'` } }] });
    await page.locator('[data-call="call-3"].waiting').waitFor();
    await page.screenshot({ path: join(shots, 'inbox.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(shots, 'inbox-390.png') });
    await page.keyboard.press('j');
    await page.keyboard.press('a');
    expect((await third).results[0]?.outcome.status).toBe('ok');

    const injected = await page.evaluate("document.querySelectorAll('#session img, #session svg, #session script, #session b').length");
    const violations = await page.evaluate('window.violations');
    expect({ dialogs, injected, violations }).toEqual({ dialogs: [], injected: 0, violations: [] });
    await eventSeen(host, (type, call) => type === 'tool/result' && call === 'call-3');
    await page.close();
  });
});
