// The consumer smoke test: the packed tarballs installed with npm into a fresh project outside
// the workspace, then the root README's examples (the host example and the Install section's), plus
// every-plugin.ts and an import of every published entry point, type-checked with tsc against the
// published .d.ts files and run with node; and the installed `dsh` bin's --version.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readManifest, workspaceRoot } from './workspace.mjs';

const here = dirname(fileURLToPath(import.meta.url));
/** The README section whose code block the smoke test compiles and runs. */
export const readmeSection = 'A host with a tool, a hook, a guard and an approval provider';
/** The README section that tells an integrator what to install; its ```ts block runs too. */
export const installSection = 'Install';

/** The first ```ts block of the README's section `heading`. */
export function readmeExample(markdown, heading) {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const next = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block?.[1]) throw new Error(`README.md's "${heading}" section has no \`\`\`ts block`);
  return block[1];
}

const tsconfig = {
  compilerOptions: {
    target: 'ES2023',
    // DOM for the fetch types (HeadersInit, …) that the MCP and provider SDKs' declarations use,
    // as in any project that compiles against those SDKs.
    lib: ['ES2023', 'DOM'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    // Check the published .d.ts files too, not only our use of them.
    skipLibCheck: false,
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src'],
};

function run(command, args, cwd) {
  execFileSync(command, args, { cwd, stdio: 'inherit' });
}

/**
 * tsc over the project with every .d.ts checked. Errors in a third-party declaration file (ai,
 * langchain, the Restate SDK under `exactOptionalPropertyTypes`) are theirs, not ours: they are
 * counted and shown, and only errors in our sources or our published .d.ts files fail the check.
 */
function typeCheck(project) {
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync('node', [tsc, '-p', project, '--pretty', 'false'], { cwd: project, encoding: 'utf8' });
  if (result.error) throw result.error;
  const errors = result.stdout.split('\n').filter((line) => /^\S.*: error TS\d+:/.test(line));
  const theirs = errors.filter((line) => isThirdPartyDeclaration(line.slice(0, line.indexOf('('))));
  const ours = errors.filter((line) => !theirs.includes(line));
  if (theirs.length > 0) {
    const files = [...new Set(theirs.map((line) => line.slice(0, line.indexOf('('))))];
    console.log(
      `tsc: ${theirs.length} errors in ${files.length} third-party .d.ts files, not ours (${files.slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''})`,
    );
  }
  if (ours.length > 0 || (result.status !== 0 && errors.length === 0)) {
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    throw new Error(`tsc found ${ours.length} errors in our sources or published declarations`);
  }
}

/** A .d.ts under node_modules that no @deepseek-ai package ships. */
function isThirdPartyDeclaration(file) {
  const parts = file.split('node_modules/');
  if (parts.length < 2 || !/\.d\.[cm]?ts$/.test(file)) return false;
  return !parts[parts.length - 1].startsWith('@deepseek-ai/');
}

/**
 * Installs `packed` (from pack.mjs) into a new temporary project and checks it there. With
 * `keep`, the project is left on disk and its path printed.
 */
export function runConsumerSmoke(packed, { keep = false } = {}) {
  const project = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-consumer-smoke-')));
  if (!relative(workspaceRoot, project).startsWith('..')) throw new Error(`${project} is inside the workspace`);
  try {
    const rootDev = readManifest(workspaceRoot).devDependencies;
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'dsh-consumer-smoke', private: true, type: 'module' }, null, 2)}\n`,
    );
    // nested: every package gets exactly the dependencies it declares, none hoisted from a
    // neighbour, so a dependency missing from one package.json fails here.
    run(
      'npm',
      [
        'install',
        '--install-strategy=nested',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        ...packed.map((p) => p.tarball),
        ...optionalPeers(packed),
        `typescript@${rootDev.typescript}`,
        `@types/node@${rootDev['@types/node']}`,
      ],
      project,
    );

    const src = join(project, 'src');
    mkdirSync(src);
    for (const file of ['prelude.ts', 'expect.ts', 'every-plugin.ts']) copyFileSync(join(here, 'smoke', file), join(src, file));
    const example = readmeExample(readFileSync(join(workspaceRoot, 'README.md'), 'utf8'), readmeSection);
    writeFileSync(
      join(src, 'readme-example.ts'),
      [
        `// README.md, "${readmeSection}", with the helpers from prelude.ts and the checks from expect.ts.`,
        "import { expectReadmeStep } from './expect.js';",
        "import { askTheUser, deploy } from './prelude.js';",
        'const fridayBefore = new Date().getDay() === 5;',
        example,
        'expectReadmeStep(results, context, [fridayBefore, new Date().getDay() === 5]);',
        "console.log('README example: compiled against the published types and ran as documented');",
        '',
      ].join('\n'),
    );
    const install = readmeExample(readFileSync(join(workspaceRoot, 'README.md'), 'utf8'), installSection);
    writeFileSync(
      join(src, 'install-example.ts'),
      [
        `// README.md, "${installSection}", as a new integrator would paste it, then a check of its one result.`,
        "import { strict as assert } from 'node:assert';",
        install,
        "assert.equal(results[0]?.outcome.status, 'ok', JSON.stringify(results[0]?.outcome));",
        "console.log('README install example: compiled against the published types and ran bash');",
        '',
      ].join('\n'),
    );
    writeFileSync(join(src, 'every-entry.ts'), everyEntrySource(project, packed));
    writeFileSync(join(project, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);

    typeCheck(project);
    for (const file of ['every-entry.js', 'readme-example.js', 'install-example.js', 'every-plugin.js'])
      run('node', [join('dist', file)], project);
    // The CLI as an installed project runs it: its `dsh` bin, reporting the installed version.
    const cliVersion = readManifest(join(project, 'node_modules', '@deepseek-ai', 'dsh-cli')).version;
    const printed = execFileSync(join(project, 'node_modules', '.bin', 'dsh'), ['--version'], { cwd: project, encoding: 'utf8' }).trim();
    if (printed !== cliVersion) throw new Error(`dsh --version printed "${printed}", the installed CLI is ${cliVersion}`);
    console.log(`dsh --version from the installed bin: ${printed}`);
  } finally {
    if (keep) console.log(`consumer project kept at ${project}`);
    else rmSync(project, { recursive: true, force: true });
  }
}

/**
 * The optional peers of the packed packages that come from the registry (a provider's SDK for
 * the agent's adapters), at the version the package develops against: a consumer using those
 * entry points installs them, and the smoke test imports every entry point.
 */
function optionalPeers(packed) {
  const ours = new Set(packed.map((p) => p.name));
  const wanted = new Map();
  for (const { dir } of packed) {
    const manifest = readManifest(dir);
    for (const [peer, meta] of Object.entries(manifest.peerDependenciesMeta ?? {})) {
      if (meta?.optional && !ours.has(peer)) wanted.set(peer, manifest.devDependencies?.[peer] ?? manifest.peerDependencies[peer]);
    }
  }
  // @google/genai's auth library declares types from undici-types without depending on it: a
  // project that type-checks its dependencies' declarations installs it, and so do we.
  if (wanted.has('@google/genai')) wanted.set('undici-types', '6');
  return [...wanted].map(([name, version]) => `${name}@${version}`);
}

/** A module importing every entry point the installed packages export, and checking each has exports. */
function everyEntrySource(project, packed) {
  const specifiers = [];
  for (const { name } of packed) {
    const manifest = readManifest(join(project, 'node_modules', name));
    const exportsMap = manifest.exports ?? { '.': manifest.main };
    for (const subpath of Object.keys(exportsMap)) {
      if (subpath.includes('*') || subpath.endsWith('.json')) continue;
      specifiers.push(subpath === '.' ? name : `${name}/${subpath.replace(/^\.\//, '')}`);
    }
  }
  const lines = ['// Every entry point of every published package, imported by name as a consumer would.'];
  specifiers.forEach((specifier, i) => {
    lines.push(`import * as entry${i} from '${specifier}';`);
  });
  lines.push(
    '',
    `const entries: Record<string, object> = { ${specifiers.map((s, i) => `'${s}': entry${i}`).join(', ')} };`,
    'const empty = Object.entries(entries).filter(([, ns]) => Object.keys(ns).length === 0);',
    "if (empty.length > 0) throw new Error('entry points without exports: ' + empty.map(([s]) => s).join(', '));",
    "console.log('every entry point: ' + Object.keys(entries).length + ' loaded, each with exports');",
    '',
  );
  return lines.join('\n');
}
