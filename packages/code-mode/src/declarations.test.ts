import { jsonSchemaOf, z } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { toolDeclarations } from './declarations.js';

function declarationOf(input: z.ZodType, output?: z.ZodType, name = 'tool', description = 'Does a thing.'): string {
  const tool = { name, description, inputSchema: jsonSchemaOf(input) };
  return toolDeclarations([output === undefined ? tool : { ...tool, outputSchema: jsonSchemaOf(output) }]);
}

describe('toolDeclarations', () => {
  it('declares each tool as a method taking its input type and promising its output', () => {
    const text = declarationOf(
      z.object({ path: z.string().describe('Where to read.'), limit: z.number().int().optional() }),
      z.object({ content: z.string(), lines: z.number() }),
      'read',
      'Reads a file.',
    );
    expect(text).toContain(
      [
        '  /** Reads a file. */',
        '  read(input: {',
        '    /** Where to read. */',
        '    path: string;',
        '    limit?: number;',
        '  }): Promise<{',
        '    content: string;',
        '    lines: number;',
        '  }>;',
      ].join('\n'),
    );
    expect(text.startsWith('/** The tools this program may call.')).toBe(true);
    expect(text).toContain('declare const console:');
    expect(text).toContain('interface ToolCallError extends Error');
  });

  it('promises unknown when a tool has no output schema', () => {
    expect(declarationOf(z.object({}))).toContain('tool(input: {}): Promise<unknown>;');
  });

  it('quotes names that are not identifiers', () => {
    expect(declarationOf(z.object({ 'file-path': z.string() }), undefined, 'read-file')).toMatch(
      /"read-file"\(input: \{\n\s+"file-path": string;/,
    );
  });

  it('writes enums, literals, unions, nullables, arrays, tuples and records', () => {
    const text = declarationOf(
      z.object({
        mode: z.enum(['fast', 'slow']),
        kind: z.literal('x'),
        either: z.union([z.string(), z.number()]),
        maybe: z.string().nullable(),
        tags: z.array(z.string()),
        rows: z.array(z.object({ a: z.boolean() })),
        pair: z.tuple([z.string(), z.number()]),
        extra: z.record(z.string(), z.number()),
        anything: z.unknown(),
      }),
    );
    expect(text).toContain('mode: "fast" | "slow";');
    expect(text).toContain('kind: "x";');
    expect(text).toContain('either: string | number;');
    expect(text).toContain('maybe: string | null;');
    expect(text).toContain('tags: string[];');
    expect(text).toMatch(/rows: Array<\{\n\s+a: boolean;\n\s+\}>;/);
    expect(text).toContain('pair: [string, number];');
    expect(text).toMatch(/extra: \{\n\s+\[key: string\]: number;\n\s+\};/);
    expect(text).toContain('anything: unknown;');
  });

  it('documents defaults and keeps a description from closing the comment early', () => {
    const text = declarationOf(
      z.object({ n: z.number().default(3).describe('How many */ to take.') }),
      undefined,
      'tool',
      'Line one.\nLine two */ here.',
    );
    expect(text).toContain('  /**\n   * Line one.\n   * Line two *\\/ here.\n   */\n  tool(input');
    expect(text).toContain('How many *\\/ to take.');
    expect(text).toContain('@default 3');
  });

  it('falls back to unknown for schemas it cannot express, and stops at a depth limit', () => {
    type Node = { child?: Node | undefined };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ child: node.optional() }));
    const text = declarationOf(z.object({ tree: node }));
    expect(text).toContain('tree: unknown;');
    let deep: z.ZodType = z.string();
    for (let i = 0; i < 12; i++) deep = z.object({ inner: deep });
    expect(declarationOf(z.object({ deep }))).toContain('inner: unknown;');
  });
});
