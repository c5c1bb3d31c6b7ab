import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createInbox, type Inbox } from './inbox.js';

type Problem = { error: { code: string; message: string } };

let inbox: Inbox;
let url: string;
let base: string;
const cookie = () => `dsh-inbox-${new URL(base).port}=${inbox.token}`;

beforeEach(async () => {
  inbox = createInbox();
  url = await inbox.listen();
  base = new URL(url).origin;
});
afterEach(() => inbox.close());

describe('the inbox door', () => {
  it('binds loopback by default and puts a token in the first URL', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
  });

  it('refuses requests without the token or with a wrong one', async () => {
    for (const headers of [{}, { Cookie: `dsh-inbox-${new URL(base).port}=wrong-token-wrong-token-wrong` }]) {
      const res = await fetch(`${base}/api/sessions`, { headers });
      expect(res.status).toBe(401);
      expect(((await res.json()) as Problem).error.code).toBe('INBOX_UNAUTHORIZED');
    }
    expect((await fetch(`${base}/app.js`)).status).toBe(401);
  });

  it('trades the URL token for an HttpOnly SameSite=Strict cookie and drops it from the address', async () => {
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    const page = await fetch(`${base}/`, { headers: { Cookie: cookie() } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
  });

  it('refuses cross-origin and cookie-less answers, and a foreign Host header', async () => {
    const cross = await fetch(`${base}/api/sessions/s/calls/c/answer`, {
      method: 'POST',
      headers: { Cookie: cookie(), Origin: 'http://evil.example', 'Content-Type': 'application/json' },
      body: '{"decision":"allow-once"}',
    });
    expect([cross.status, ((await cross.json()) as Problem).error.code]).toEqual([403, 'INBOX_CROSS_ORIGIN']);
    const noToken = await fetch(`${base}/api/sessions/s/calls/c/answer`, {
      method: 'POST',
      headers: { Origin: base, 'Content-Type': 'application/json' },
      body: '{"decision":"allow-once"}',
    });
    expect(noToken.status).toBe(401);
    // A DNS-rebinding page reaches the loopback port under its own name: the Host header gives it away.
    const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${base}/api/sessions`, { headers: { Cookie: cookie(), Host: 'attacker.example' } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect([rebound.status, JSON.parse(rebound.body).error.code]).toEqual([403, 'INBOX_FORBIDDEN']);
  });

  it('refuses a 10 MB body with INBOX_BODY_TOO_LARGE and stays up', async () => {
    const res = await fetch(`${base}/api/sessions/s/calls/c/answer`, {
      method: 'POST',
      headers: { Cookie: cookie(), Origin: base, 'Content-Type': 'application/json' },
      body: `{"message":"${'x'.repeat(10 * 1024 * 1024)}"}`,
    });
    expect([res.status, ((await res.json()) as Problem).error.code]).toEqual([413, 'INBOX_BODY_TOO_LARGE']);
    expect((await fetch(`${base}/api/sessions`, { headers: { Cookie: cookie() } })).status).toBe(200);
  });

  it('refuses to bind a non-loopback address without a token', () => {
    expect(() => createInbox({ host: '0.0.0.0', token: false })).toThrow(expect.objectContaining({ code: 'INBOX_UNSAFE_BIND' }));
    expect(() => createInbox({ port: -1 })).toThrow(expect.objectContaining({ code: 'INBOX_INVALID_OPTIONS' }));
  });

  it('asks the authorize hook and records its user', async () => {
    const seen: string[] = [];
    const guarded = createInbox({
      authorize: (_req, action) => {
        seen.push(action);
        return action === 'view' ? { user: 'ada' } : false;
      },
    });
    const gurl = await guarded.listen();
    try {
      const g = new URL(gurl);
      const c = `dsh-inbox-${g.port}=${guarded.token}`;
      expect((await fetch(`${g.origin}/api/sessions`, { headers: { Cookie: c } })).status).toBe(200);
      const answer = await fetch(`${g.origin}/api/sessions/s/calls/c/answer`, {
        method: 'POST',
        headers: { Cookie: c, Origin: g.origin, 'Content-Type': 'application/json' },
        body: '{"decision":"allow-once"}',
      });
      expect([answer.status, ((await answer.json()) as Problem).error.code]).toEqual([403, 'INBOX_FORBIDDEN']);
      expect(seen).toEqual(['view', 'answer']);
    } finally {
      await guarded.close();
    }
  });

  it('holds 1,000 concurrent streams, refuses more with a code, and stays up', async () => {
    const small = createInbox({ maxStreams: 1000 });
    const surl = new URL(await small.listen());
    const c = `dsh-inbox-${surl.port}=${small.token}`;
    try {
      const controllers = Array.from({ length: 1000 }, () => new AbortController());
      const opened = await Promise.all(
        controllers.map((ac) => fetch(`${surl.origin}/api/stream`, { headers: { Cookie: c }, signal: ac.signal })),
      );
      expect(opened.every((r) => r.status === 200)).toBe(true);
      const extra = await fetch(`${surl.origin}/api/stream`, { headers: { Cookie: c } });
      expect([extra.status, ((await extra.json()) as Problem).error.code]).toEqual([503, 'INBOX_TOO_MANY_STREAMS']);
      for (const ac of controllers) ac.abort();
      expect((await fetch(`${surl.origin}/api/sessions`, { headers: { Cookie: c } })).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});
