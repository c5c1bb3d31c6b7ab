import { asciiLowerCase } from './ascii.js';
import { encodingLabels } from './encoding-labels.js';

/** The name of an encoding of the WHATWG Encoding Standard, in lower case (`windows-1252`, `shift_jis`, …). */
export type EncodingName = keyof typeof encodingLabels;

const byLabel: ReadonlyMap<string, EncodingName> = new Map(
  (Object.entries(encodingLabels) as [EncodingName, readonly string[]][]).flatMap(([name, labels]) =>
    labels.map((label) => [label, name] as const),
  ),
);

/** ASCII whitespace of the Infra standard: TAB, LF, FF, CR and SPACE (not every `\s`). */
const asciiWhitespace = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;

/**
 * The Encoding Standard's "get an encoding": the label with ASCII whitespace
 * trimmed and ASCII letters lowered (only A–Z, so a Kelvin sign or a dotted
 * İ never turns into a label), looked up among the standard's labels.
 * `undefined` is the standard's failure.
 */
export function getEncoding(label: string): EncodingName | undefined {
  const key = asciiLowerCase(label.replace(asciiWhitespace, ''));
  return byLabel.get(key);
}
