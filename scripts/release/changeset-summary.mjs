// What a changeset's summary must be: the words a user reads in the CHANGELOG, so a sentence that
// says what changed, not a placeholder. Used by the release rehearsal (rehearse.mjs).

/** Why a changeset's summary would not tell a user what changed; empty when it does. */
export function summaryProblems(summary) {
  const text = summary.trim();
  const words = text.split(/\s+/).filter((word) => /[a-z]/i.test(word));
  const problems = [];
  if (words.length < 6) problems.push(`too short to say what changed (${words.length} words; write a sentence a user understands)`);
  if (/^(wip|fix|fixes|update|updates|changes?|misc|tmp|todo)\b[.!]?$/i.test(text)) problems.push('a placeholder, not a description');
  if (/^[0-9a-f]{7,40}$/i.test(text)) problems.push('a commit hash, not a description');
  return problems;
}
