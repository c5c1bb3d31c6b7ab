import { describe, expect, it } from 'vitest';
import { collapse, RUNTIME_ARGUMENT, splitCommand } from './shell-split.js';

/** The commands that must be allowed, as normalised text. */
function commands(line: string): string[] {
  return splitCommand(line)
    .commands.filter((c) => c.role === 'command')
    .map((c) => c.text);
}

describe('splitCommand', () => {
  it.each([
    ['git log; rm -rf ~', ['git log', 'rm -rf ~']],
    ['git log && rm -rf ~', ['git log', 'rm -rf ~']],
    ['git log || rm -rf ~', ['git log', 'rm -rf ~']],
    ['git log | rm -rf ~', ['git log', 'rm -rf ~']],
    ['git log |& tee x', ['git log', 'tee x']],
    ['sleep 1 & rm -rf ~', ['sleep 1', 'rm -rf ~']],
    ['git log\nrm -rf ~', ['git log', 'rm -rf ~']],
    ['git   status   ', ['git status']],
  ])('splits %j at its operators', (line, expected) => {
    expect(commands(line)).toEqual(expected);
  });

  it.each([
    ['git log $(rm -rf ~)', ['rm -rf ~', 'git log $(rm -rf ~)']],
    ['echo `rm -rf ~`', ['rm -rf ~', 'echo `rm -rf ~`']],
    ['echo "$(rm -rf ~)"', ['rm -rf ~', 'echo "$(rm -rf ~)"']],
    ['echo "`rm -rf ~`"', ['rm -rf ~', 'echo "`rm -rf ~`"']],
    ['echo $(echo $(rm -rf ~))', ['rm -rf ~', 'echo $(rm -rf ~)', 'echo $(echo $(rm -rf ~))']],
    ['diff <(rm -rf ~) >(cat)', ['rm -rf ~', 'cat', 'diff <(rm -rf ~) >(cat)']],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    ['echo ${x:-$(rm -rf ~)}', ['rm -rf ~', 'echo ${x:-$(rm -rf ~)}']],
    ['echo $((1 + $(rm -rf ~ | wc -l)))', ['rm -rf ~', 'wc -l', 'echo $((1 + $(rm -rf ~ | wc -l)))']],
    ['X=$(rm -rf ~) git status', ['rm -rf ~', 'git status']],
    ['arr=(a $(rm -rf ~)); echo ok', ['rm -rf ~', 'echo ok']],
  ])('finds the commands inside substitutions of %j', (line, expected) => {
    expect(commands(line)).toEqual(expected);
  });

  it.each([
    ['git commit -m "a; rm -rf ~"', ['git commit -m "a; rm -rf ~"']],
    ["git commit -m 'a && rm -rf ~'", ["git commit -m 'a && rm -rf ~'"]],
    ["echo '$(rm -rf ~)'", ["echo '$(rm -rf ~)'"]],
    ['echo \\$(rm -rf ~)', ['echo \\$ rm -rf ~']],
    ['git log \\; rm -rf ~', ['git log \\; rm -rf ~']],
    ['git status # ; rm -rf ~', ['git status']],
    ["echo $'a\\'; rm -rf ~'", ["echo $'a\\'; rm -rf ~'"]],
    ["cat <<'EOF'\n$(rm -rf ~)\nEOF", ['cat']],
  ])('keeps quoted and escaped operators of %j inside one command', (line, expected) => {
    if (line === 'echo \\$(rm -rf ~)') {
      // `\$(` is a literal dollar: `(rm -rf ~)` is then a subshell syntax error, so the line is not read as safe.
      expect(splitCommand(line).complete).toBe(false);
      return;
    }
    expect(commands(line)).toEqual(expected);
  });

  it.each([
    ['(cd /tmp && rm -rf x)', ['cd /tmp', 'rm -rf x']],
    ['{ git status; rm -rf ~; }', ['git status', 'rm -rf ~']],
    ['if git diff --quiet; then rm -rf ~; else echo no; fi', ['git diff --quiet', 'rm -rf ~', 'echo no']],
    ['while true; do rm -rf ~; done', ['true', 'rm -rf ~']],
    ['for f in $(ls); do rm "$f"; done', ['ls', 'rm "$f"']],
    ['for ((i=0; i<3; i++)); do rm x; done', ['rm x']],
    ['case $x in a) rm -rf ~;; b|c) echo b;; esac', ['rm -rf ~', 'echo b']],
    ['f() { rm -rf ~; }; f', ['rm -rf ~', 'f']],
    ['function f { rm -rf ~; }', ['rm -rf ~']],
    ['! rm -rf ~', ['rm -rf ~']],
    ['time -p rm -rf ~', ['rm -rf ~']],
    ['[[ -n "$(rm -rf ~)" && -f x ]] && echo y', ['rm -rf ~', 'echo y']],
    ['cat <<EOF\n$(rm -rf ~)\nEOF\necho done', ['cat', 'rm -rf ~', 'echo done']],
    ['cat <<-EOF\n\t`rm -rf ~`\n\tEOF', ['cat', 'rm -rf ~']],
  ])('finds the commands inside the structures of %j', (line, expected) => {
    expect(commands(line)).toEqual(expected);
  });

  it.each([
    ['timeout 5 rm -rf ~', ['rm -rf ~']],
    ['nice -n 10 nohup rm -rf ~', ['rm -rf ~']],
    ['env -i FOO=1 rm -rf ~', ['rm -rf ~']],
    ['command rm -rf ~', ['rm -rf ~']],
    ['bash -c "git status && rm -rf ~"', ['git status', 'rm -rf ~']],
    ["sh -lc 'rm -rf ~'", ['rm -rf ~']],
    ['eval "rm -rf ~"', ['rm -rf ~']],
    ['sudo -u root rm -rf /', ['sudo -u root rm -rf /', 'rm -rf /']],
    ['watch -n 1 "rm -rf ~"', ['rm -rf ~']],
  ])('looks through the wrappers of %j', (line, expected) => {
    expect(commands(line)).toEqual(expected);
  });

  it('shows arguments added at run time as a placeholder that only a wildcard matches', () => {
    expect(commands('ls | xargs rm')).toEqual(['ls', 'xargs rm', `rm ${RUNTIME_ARGUMENT}`]);
    expect(commands('find . -name x -exec rm -f {} \\;')).toEqual(['find . -name x -exec rm -f {} \\;', `rm -f ${RUNTIME_ARGUMENT}`]);
  });

  it('drops assignments and harmless redirections from the text, and keeps writes to files', () => {
    expect(commands('FOO=1 npm test 2>&1 >/dev/null')).toEqual(['npm test']);
    expect(commands('npm test > out.txt')).toEqual(['npm test > out.txt']);
    expect(commands('echo x >> ~/.bashrc')).toEqual(['echo x >> ~/.bashrc']);
    expect(commands('> ~/.bashrc')).toEqual(['> ~/.bashrc']);
    expect(commands('while read l; do echo "$l"; done < in.txt')).toEqual(['read l', 'echo "$l"']);
  });

  it('removes quotes in argvText and names path-qualified programs by their basename', () => {
    const [cmd] = splitCommand('"/bin/rm" -rf \'~\'').commands;
    expect(cmd?.argvText).toBe('/bin/rm -rf ~');
    expect(cmd?.aliases).toEqual(['rm -rf ~']);
  });

  it("decodes $'…' escapes the way bash does, so an encoded program name is still found", () => {
    expect(splitCommand("$'\\x72m' -rf ~").commands[0]?.argvText).toBe('rm -rf ~');
    expect(splitCommand("$'\\162\\155' -rf ~").commands[0]?.argvText).toBe('rm -rf ~');
    expect(splitCommand("$'\\u0072m' -rf ~").commands[0]?.argvText).toBe('rm -rf ~');
  });

  it('marks a command whose program is not known statically as inexact', () => {
    expect(splitCommand('{rm,-rf,~}').commands[0]?.exact).toBe(false);
    expect(splitCommand('r{m,x} -rf ~').commands[0]?.exact).toBe(false);
    expect(splitCommand('{ rm -rf ~; }').commands[0]).toMatchObject({ text: 'rm -rf ~', exact: true });
    const split = splitCommand('$CMD -rf ~; echo ok');
    expect(split.commands.map((c) => [c.text, c.exact])).toEqual([
      ['$CMD -rf ~', false],
      ['echo ok', true],
    ]);
    expect(splitCommand('eval "$X"').commands.some((c) => !c.exact)).toBe(true);
    expect(splitCommand('bash -c "$X"').commands.some((c) => !c.exact)).toBe(true);
    expect(splitCommand('/usr/bin/r? -rf ~').commands[0]?.exact).toBe(false);
  });

  it.each([
    ['echo "unterminated'],
    ["echo 'unterminated"],
    ['echo $(rm -rf ~'],
    ['echo `rm -rf ~'],
    ['(rm -rf ~'],
    ['rm -rf ~)'],
    ['cat <<EOF\nno end'],
    ['echo >'],
  ])('reports %j as incomplete, with the whole line as a command no specific rule allows', (line) => {
    const split = splitCommand(line);
    expect(split.complete).toBe(false);
    expect(split.problems.length).toBeGreaterThan(0);
    const last = split.commands.at(-1);
    expect(last?.exact).toBe(false);
    expect(last?.text).toBe(line.replace(/\s+/g, ' ').trim());
  });

  it('still finds what it can in an incomplete line, for deny rules', () => {
    expect(commands('rm -rf ~; echo "oops')).toContain('rm -rf ~');
  });

  it('treats an empty line as one inexact command', () => {
    expect(splitCommand('   ').commands).toHaveLength(1);
    expect(splitCommand('').commands[0]?.exact).toBe(false);
  });

  it('reads a program named like an Object property (constructor, toString) as a program, not a wrapper', () => {
    expect(commands('constructor -x rm')).toEqual(['constructor -x rm']);
    expect(commands('toString rm -rf ~')).toEqual(['toString rm -rf ~']);
  });

  it('joins quoted, escaped and plain parts of a word into one value', () => {
    const [command] = splitCommand(`a"b c"d'e'\\ f$'\\x67'"h\\"\\$i\\q" j`).commands;
    expect(command?.argv).toEqual(['ab cde fgh"$i\\q', 'j']);
  });

  it('gives the same split for a line seen again after many other lines', () => {
    const line = 'git status && npm test # again';
    const first = splitCommand(line);
    expect(splitCommand(line)).toBe(first);
    for (let i = 0; i < 1200; i += 1) splitCommand(`echo ${i}`);
    const later = splitCommand(line);
    expect(later).toEqual(first);
    expect(Object.isFrozen(later.commands[0])).toBe(true);
  });

  it.each([
    ['git status', 'git status'],
    ['  git   status\t', 'git status'],
    ['git\tstatus\n', 'git status'],
    ['git\u00a0status', 'git status'],
    ['git\u2028 status', 'git status'],
    ['grün  status', 'grün status'],
    ['', ''],
  ])('collapses the whitespace of %j', (text, expected) => {
    expect(collapse(text)).toBe(expected);
  });

  it('stops at a nesting depth instead of recursing without end', () => {
    const deep = `${'$('.repeat(40)}rm -rf ~${')'.repeat(40)}`;
    const split = splitCommand(deep);
    expect(split.complete).toBe(false);
    const wrapped = splitCommand(`${'eval '.repeat(20)}rm -rf ~`);
    expect(wrapped.complete).toBe(false);
    expect(wrapped.problems).toContain('wrappers are nested too deeply to check');
  });
});

describe('splitCommand under generated nesting', () => {
  /** Wraps a command in one construct that still runs it. */
  const wrappers: readonly ((inner: string) => string)[] = [
    (c) => `git log; ${c}`,
    (c) => `${c} && echo ok`,
    (c) => `true || ${c}`,
    (c) => `cat x | ${c}`,
    // A space after `$(`: `$((…))` is arithmetic, where bash runs no command.
    (c) => `echo $( ${c})`,
    (c) => `echo "$( ${c})"`,
    (c) => `( ${c} )`,
    (c) => `{ ${c}; }`,
    (c) => `if true; then ${c}; fi`,
    (c) => `for i in 1; do ${c}; done`,
    (c) => `case x in x) ${c};; esac`,
    (c) => `${c} &`,
    (c) => `f() { ${c}; }`,
    (c) => `diff <( ${c}) y`,
    (c) => `echo \${x:-$( ${c})}`,
  ];

  /** Prefixes that only make sense on a simple command, so they are applied first. */
  const prefixes = ['', 'timeout 5 ', 'nohup ', 'FOO=1 ', 'env X=1 ', 'nice -n 1 ', 'command ', 'exec ', 'sudo ', '/bin/', '\\'];

  it('always finds the inner command, or reports the line as not fully readable', async () => {
    const fc = await import('fast-check');
    const picks = fc.array(fc.integer({ min: 0, max: wrappers.length - 1 }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), picks, (prefix, chosen) => {
        const line = chosen.reduce((inner, pick) => (wrappers[pick] as (c: string) => string)(inner), `${prefix}rm -rf ~`);
        const split = splitCommand(line);
        const found = split.commands.some((c) => c.argvText === 'rm -rf ~' || c.aliases.includes('rm -rf ~'));
        return found || !split.complete;
      }),
      { numRuns: 500 },
    );
  });
});
