import { describe, expect, it } from 'vitest';
import { createHost, DshError, definePlugin, ErrorCode } from './index.js';

describe('host.sandboxPolicy', () => {
  it('is an empty, stable policy on a host no plugin contributes to', () => {
    const host = createHost();
    const policy = host.sandboxPolicy.current();
    expect(policy).toMatchObject({ hidden: [], readOnly: [], writable: [], sources: [] });
    expect(policy.network).toMatchObject({ allowedDomains: [], deniedDomains: [], allowManagedDomainsOnly: false });
    expect(host.sandboxPolicy.current()).toBe(policy);
    expect(Object.isFrozen(policy)).toBe(true);
  });

  it('merges every part: paths and domain lists join, a widening flag needs every part, ports come from the last', () => {
    const host = createHost();
    host.sandboxPolicy.contribute('a', () => ({
      hidden: ['/w/.env', '/w/secrets/**'],
      readOnly: ['/w/config'],
      network: { allowedDomains: ['example.com'], allowLocalBinding: true, httpProxyPort: 3128 },
    }));
    host.sandboxPolicy.contribute('b', () => ({
      hidden: ['/w/.env'],
      writable: ['/out'],
      network: { deniedDomains: ['evil.example'], allowLocalBinding: false, httpProxyPort: 8080, allowManagedDomainsOnly: true },
    }));
    const policy = host.sandboxPolicy.current();
    expect(policy.hidden).toEqual(['/w/.env', '/w/secrets/**']);
    expect(policy.readOnly).toEqual(['/w/config']);
    expect(policy.writable).toEqual(['/out']);
    expect(policy.network).toMatchObject({
      allowedDomains: ['example.com'],
      deniedDomains: ['evil.example'],
      allowLocalBinding: false,
      allowManagedDomainsOnly: true,
      httpProxyPort: 8080,
    });
    expect(policy.sources).toEqual(['a', 'b']);
  });

  it('reads a part again only after it says it changed, and bumps the version', () => {
    const host = createHost();
    let hidden = ['/w/one'];
    let reads = 0;
    host.sandboxPolicy.contribute('rules', () => {
      reads += 1;
      return { hidden };
    });
    const first = host.sandboxPolicy.current();
    expect(host.sandboxPolicy.current()).toBe(first);
    expect(reads).toBe(1);
    hidden = ['/w/two'];
    host.sandboxPolicy.changed();
    const second = host.sandboxPolicy.current();
    expect(second.hidden).toEqual(['/w/two']);
    expect(second.version).toBeGreaterThan(first.version);
    expect(reads).toBe(2);
  });

  it('drops a part when its remover is called', () => {
    const host = createHost();
    const remove = host.sandboxPolicy.contribute('rules', () => ({ hidden: ['/w/.env'] }));
    expect(host.sandboxPolicy.current().hidden).toEqual(['/w/.env']);
    remove();
    expect(host.sandboxPolicy.current().hidden).toEqual([]);
  });

  it('refuses a second part of the same name', () => {
    const host = createHost();
    host.sandboxPolicy.contribute('rules', () => ({}));
    expect(() => host.sandboxPolicy.contribute('rules', () => ({}))).toThrowError(
      expect.objectContaining({ code: ErrorCode.DUPLICATE_SANDBOX_POLICY }),
    );
  });

  it('fails closed when a part throws: current() throws SANDBOX_POLICY_FAILED naming it', () => {
    const host = createHost();
    host.sandboxPolicy.contribute('broken', () => {
      throw new Error('settings unreadable');
    });
    let caught: unknown;
    try {
      host.sandboxPolicy.current();
    } catch (error) {
      caught = error;
    }
    expect(DshError.isInstance(caught) && caught.code === ErrorCode.SANDBOX_POLICY_FAILED).toBe(true);
    expect((caught as Error).message).toContain('"broken"');
  });

  it('removes the part of a plugin whose registration fails', async () => {
    const host = createHost();
    const failing = definePlugin({
      name: 'half-registered',
      version: '1.0.0',
      register(h) {
        h.sandboxPolicy.contribute('half-registered', () => ({ hidden: ['/w/.env'] }));
        throw new Error('no');
      },
    });
    await expect(host.use(failing)).rejects.toMatchObject({ code: ErrorCode.PLUGIN_REGISTER_FAILED });
    expect(host.sandboxPolicy.current().sources).toEqual([]);
  });
});
