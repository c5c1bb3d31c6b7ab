// A Streamable HTTP MCP server for the auth bench: one `echo` tool at /open (no auth) and at /auth, which
// answers 401 (with resource metadata, as an OAuth-protected server does) unless the bearer token is TOKEN.
// Prints its port on stdout. Run as its own process so the client side is measured alone.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const TOKEN = 'bench-access-token';
const sessions = new Map();

async function newSession() {
  const mcp = new Server({ name: 'bench-bearer', version: '1.0.0' }, { capabilities: { tools: {} } });
  const inputSchema = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };
  mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'echo', description: 'echoes', inputSchema }] }));
  mcp.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: 'text', text: String(request.params.arguments?.message) }],
  }));
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  await mcp.connect(transport);
  return transport;
}

const server = createServer(async (req, res) => {
  const origin = `http://127.0.0.1:${server.address().port}`;
  const path = new URL(req.url ?? '/', origin).pathname;
  if (path === '/auth' && req.headers.authorization !== `Bearer ${TOKEN}`) {
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/auth"` }).end();
    return;
  }
  if (path !== '/open' && path !== '/auth') return res.writeHead(404).end();
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks).toString('utf8');
  const sid = req.headers['mcp-session-id'];
  const transport = (typeof sid === 'string' ? sessions.get(sid) : undefined) ?? (await newSession());
  await transport.handleRequest(req, res, body === '' ? undefined : JSON.parse(body));
});

if (process.argv[1] === new URL(import.meta.url).pathname) {
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
}
