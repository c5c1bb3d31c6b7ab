import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LosslessNumber } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { httpTransport } from './http-transport.js';

describe('httpTransport', () => {
  it('writes bigints and LosslessNumbers with every digit, and leaves look-alike strings alone', async () => {
    const bodies: string[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        bodies.push(body);
        response.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const transport = httpTransport(new URL(`http://127.0.0.1:${port}/mcp`), { 'X-Test': '1' });
    try {
      await transport.start();
      await transport.send({
        jsonrpc: '2.0',
        method: 'notifications/test',
        params: {
          big: 123456789012345678901234567890n,
          exact: new LosslessNumber('0.1000000000000000000001'),
          text: '\u0000dsh-number-x:1\u0000',
        },
      } as never);
      expect(bodies[0]).toBe(
        '{"jsonrpc":"2.0","method":"notifications/test","params":{"big":123456789012345678901234567890,"exact":0.1000000000000000000001,"text":"\\u0000dsh-number-x:1\\u0000"}}',
      );
    } finally {
      await transport.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
