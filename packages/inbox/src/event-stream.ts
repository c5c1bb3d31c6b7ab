import type { ServerResponse } from 'node:http';
import { exactJsonText } from '@deepseek-ai/dsh-core';
import type { SessionStore, StoreChange } from './session-store.js';

// A page that reads slower than the inbox writes is cut off (it reconnects and gets a fresh snapshot): memory stays bounded.
const maxBuffered = 4 * 1024 * 1024;

/**
 * One open page's server-sent events: `sessions` (the list) and `snapshot`
 * (the chosen session's events) on connect, then `session` and `event` as
 * they happen. Each change is written synchronously as the store reports it.
 */
export function openEventStream(res: ServerResponse, store: SessionStore, session: string | undefined, onClose: () => void): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  const send = (name: string, data: unknown): void => {
    res.write(`event: ${name}\ndata: ${exactJsonText(data)}\n\n`);
    if (res.writableLength > maxBuffered) res.destroy();
  };
  send('sessions', store.sessions());
  if (session !== undefined) {
    const kept = store.events(session);
    send('snapshot', { session, events: kept?.events ?? [], dropped: kept?.dropped ?? 0 });
  }
  const unsubscribe = store.subscribe((change: StoreChange) => {
    if (change.kind === 'session') send('session', change.summary);
    else if (change.session === session) send('event', change.event);
  });
  // A comment now and then keeps proxies from closing an idle stream.
  const ping = setInterval(() => res.write(': ping\n\n'), 25_000);
  ping.unref();
  res.on('close', () => {
    clearInterval(ping);
    unsubscribe();
    onClose();
  });
}
