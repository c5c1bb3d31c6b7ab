import { describe, expect, it } from 'vitest';
import { locateInStack, programLocation, stripTypes, unfence, wrapProgram } from './program-source.js';

describe('program source', () => {
  it('removes a markdown fence around the whole program, with or without a language', () => {
    expect(unfence('```js\nreturn 1;\n```')).toBe('return 1;');
    expect(unfence('  ```\nconst a = 1;\nreturn a;\n```  \n')).toBe('const a = 1;\nreturn a;');
    expect(unfence('```typescript\nreturn 1;```')).toBe('return 1;');
  });

  it('leaves code without a surrounding fence exactly as sent', () => {
    const code = 'const s = "```";\nreturn s;';
    expect(unfence(code)).toBe(code);
    expect(unfence('return 1;\n```')).toBe('return 1;\n```');
  });

  it('keeps the body on line 1, so positions map back to the model’s code', () => {
    const wrapped = wrapProgram('return 1;\nreturn 2;');
    expect(wrapped.split('\n')[1]).toBe('return 2;');
    expect(programLocation(1, 20)).toEqual({ line: 1, column: 6 });
    expect(programLocation(2, 5)).toEqual({ line: 2, column: 5 });
    expect(locateInStack('    at f (program.js:3:7)\n    at run (bootstrap.js:1:1)\n')).toEqual({ line: 3, column: 7 });
    expect(locateInStack('    at run (bootstrap.js:1:1)\n')).toBeUndefined();
  });

  it('strips TypeScript without moving lines, and refuses what is not TypeScript either', async () => {
    const stripped = await stripTypes(wrapProgram('const a: number = 1;\ninterface X { y: string }\nreturn a as number;'));
    expect(stripped.split('\n')[2]?.trim()).toBe('return a ;');
    expect(stripped).not.toContain('interface');
    await expect(stripTypes(wrapProgram('let = ;'))).rejects.toThrow();
  });
});
