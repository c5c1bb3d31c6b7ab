#!/usr/bin/env node
// A tiny MCP server over stdio, written with the official SDK, for `dsh demo` and the tests of
// `dsh mcp list`: a notes list kept in memory, with a read-only tool, a tool that adds a note and a
// destructive one that deletes them all. Run as `node notes-server.js`.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const notes: string[] = ['Buy milk'];

const tools = [
  {
    name: 'list_notes',
    description: 'Lists the notes.',
    inputSchema: { type: 'object' as const, properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'add_note',
    description: 'Adds a note.',
    inputSchema: {
      type: 'object' as const,
      properties: { text: { type: 'string', minLength: 1, description: 'The note' } },
      required: ['text'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  {
    name: 'delete_notes',
    description: 'Deletes every note.',
    inputSchema: { type: 'object' as const, properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: false, destructiveHint: true },
  },
];

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

const server = new Server({ name: 'dsh-demo-notes', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
  const { name, arguments: args } = request.params;
  switch (name) {
    case 'list_notes':
      return text(notes.length === 0 ? '(no notes)' : notes.map((n, i) => `${i + 1}. ${n}`).join('\n'));
    case 'add_note': {
      const note = typeof args?.text === 'string' ? args.text : '';
      if (note === '') return { ...text('text: a note needs some text'), isError: true };
      notes.push(note);
      return text(`added note ${notes.length}: ${note}`);
    }
    case 'delete_notes': {
      const count = notes.splice(0).length;
      return text(`deleted ${count} notes`);
    }
    default:
      return { ...text(`unknown tool ${name}`), isError: true };
  }
});
await server.connect(new StdioServerTransport());
