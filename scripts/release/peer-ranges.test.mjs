// Plugins peer-depend on core with a range that the workspace's core satisfies today and that a
// core minor (or patch) release keeps satisfied, so changesets' onlyUpdatePeerDependentsWhenOutOfRange
// does not force a major release of every plugin whenever core gains a feature.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { coreName, publishedPackages, workspacePackages } from './workspace.mjs';

// The very semver changesets uses to decide whether a release leaves a peer range satisfied.
const require = createRequire(import.meta.url);
const semver = createRequire(require.resolve('@changesets/cli/package.json'))('semver');

const versions = new Map(workspacePackages().map((pkg) => [pkg.manifest.name, pkg.manifest.version]));
const coreVersion = versions.get(coreName);
const dependents = publishedPackages().filter((pkg) => pkg.manifest.name !== coreName);

describe('the workspace', () => {
  it('has a core package with a valid version and at least one package built on it', () => {
    expect(semver.valid(coreVersion)).toBe(coreVersion);
    expect(dependents.length).toBeGreaterThan(0);
  });
});

describe.each(dependents.map((pkg) => [pkg.manifest.name, pkg.manifest]))('%s', (name, manifest) => {
  const peers = manifest.peerDependencies ?? {};
  const deps = manifest.dependencies ?? {};
  const devDeps = manifest.devDependencies ?? {};

  it('names core as a peer (a plugin) or as a workspace dependency (an application), never both', () => {
    const asPeer = coreName in peers;
    const asDependency = coreName in deps;
    expect(asPeer !== asDependency, `${name}: core in peerDependencies=${asPeer}, dependencies=${asDependency}`).toBe(true);
    if (asDependency) expect(deps[coreName]).toMatch(/^workspace:[\^~]$/);
  });

  const workspacePeers = Object.keys(peers).filter((peer) => versions.has(peer));
  it.each(workspacePeers)('has a %s peer range containing the workspace version and its next minor and patch', (peer) => {
    const range = peers[peer];
    const current = versions.get(peer);
    expect(semver.validRange(range), `${name}: peer range "${range}" for ${peer} is not a valid range`).not.toBeNull();
    for (const version of [current, semver.inc(current, 'patch'), semver.inc(current, 'minor')]) {
      expect(semver.satisfies(version, range), `${name}: ${peer}@${version} is outside the peer range "${range}"`).toBe(true);
    }
    expect(semver.satisfies(semver.inc(current, 'major'), range), `${name}: "${range}" claims the next major of ${peer}`).toBe(false);
  });

  it.each(workspacePeers)('develops against the workspace copy of its peer %s', (peer) => {
    expect(devDeps[peer], `${name}: devDependencies["${peer}"] should be a workspace: range`).toMatch(/^workspace:/);
  });
});
