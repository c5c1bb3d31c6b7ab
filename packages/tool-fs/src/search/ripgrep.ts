import { execFile, spawn } from 'node:child_process';

/** Resolves with the executable when `rg --version` runs, else `undefined`. */
export function probeRipgrep(executable: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(executable, ['--version'], { timeout: 5000 }, (error, stdout) => {
      resolve(error === null && stdout.startsWith('ripgrep') ? executable : undefined);
    });
  });
}

/** Paths per ripgrep run, in bytes: well under Linux's 2 MiB for arguments and environment together. */
const maxArgBytes = 1024 * 1024;

/**
 * The files among `files` whose bytes contain `literal` (ASCII case folded
 * when `ignoreCase`), found by ripgrep: a superset of the files the regex can
 * match, which the caller then searches itself. A chunk ripgrep fails on
 * counts as all candidates, so a failure costs time, never results.
 */
export async function ripgrepCandidates(
  executable: string,
  literal: string,
  ignoreCase: boolean,
  files: readonly string[],
  signal: AbortSignal,
): Promise<Set<string>> {
  const chunks: string[][] = [[]];
  let bytes = 0;
  for (const file of files) {
    const size = Buffer.byteLength(file) + 1;
    if (bytes + size > maxArgBytes) {
      chunks.push([]);
      bytes = 0;
    }
    (chunks.at(-1) as string[]).push(file);
    bytes += size;
  }
  // The runs are independent: ripgrep searches each chunk with its own threads, all at once.
  const listed = await Promise.all(
    chunks.map((chunk) => (chunk.length === 0 ? Promise.resolve([]) : runChunk(executable, literal, ignoreCase, chunk, signal))),
  );
  const found = new Set<string>();
  for (const [index, chunk] of chunks.entries()) {
    for (const f of listed[index] ?? chunk) found.add(f);
    // A name that is not valid UTF-8 cannot be matched against ripgrep's output: keep it.
    for (const f of chunk) if (f.includes('\uFFFD')) found.add(f);
  }
  return found;
}

function runChunk(
  executable: string,
  literal: string,
  ignoreCase: boolean,
  files: readonly string[],
  signal: AbortSignal,
): Promise<string[] | undefined> {
  const args = [
    '--no-config',
    '--files-with-matches',
    '--null',
    '--no-messages',
    '--text',
    '--encoding',
    'none',
    '--fixed-strings',
    ignoreCase ? '--ignore-case' : '--case-sensitive',
    '--regexp',
    literal,
    '--',
    ...files,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { stdio: ['ignore', 'pipe', 'ignore'], signal });
    const out: Buffer[] = [];
    child.stdout.on('data', (data: Buffer) => out.push(data));
    child.on('error', () => {
      if (signal.aborted) reject(signal.reason);
      else resolve(undefined);
    });
    child.on('close', (code) => {
      if (signal.aborted) return reject(signal.reason);
      if (code !== 0 && code !== 1) return resolve(undefined);
      resolve(
        Buffer.concat(out)
          .toString('utf8')
          .split('\0')
          .filter((f) => f.length > 0),
      );
    });
  });
}
