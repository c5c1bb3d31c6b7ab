const heading = /^#{1,6}(?:[ \t]+|$)/;

/**
 * The first paragraph of a skill's instructions, on one line: the text of
 * the first ATX heading or run of non-blank lines, whichever comes first
 * (a heading is a block of its own, so `# Title` gives `Title`). What
 * Claude Code's documentation promises for a skill without a description.
 * `undefined` when the instructions hold no text.
 */
export function firstParagraph(markdown: string): string | undefined {
  const lines = markdown.split(/\r?\n/);
  const paragraph: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (heading.test(line)) {
      if (paragraph.length > 0) break;
      // A closing run of `#` is part of the heading's syntax, not its text.
      const text = line
        .replace(heading, '')
        .replace(/[ \t]+#+$/, '')
        .trim();
      if (text !== '') return text;
      continue;
    }
    if (line === '') {
      if (paragraph.length > 0) break;
      continue;
    }
    paragraph.push(line);
  }
  return paragraph.length === 0 ? undefined : paragraph.join(' ');
}
