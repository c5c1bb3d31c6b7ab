import { describe, expect, it } from 'vitest';
import { parseDomainPattern } from './domain-pattern.js';
import { domainPolicy } from './domain-policy.js';

describe('domain patterns', () => {
  it('matches *.example.com against subdomains only, never look-alikes', () => {
    const policy = domainPolicy({ allowedDomains: ['*.example.com'] });
    const verdict = (host: string) => policy.check({ host, port: 443 }).verdict;
    expect(verdict('api.example.com')).toBe('allow');
    expect(verdict('a.b.example.com')).toBe('allow');
    expect(verdict('API.Example.COM.')).toBe('allow');
    expect(verdict('example.com')).toBe('unlisted');
    expect(verdict('evil-example.com')).toBe('unlisted');
    expect(verdict('example.com.evil.net')).toBe('unlisted');
    expect(verdict('evilexample.com')).toBe('unlisted');
  });

  it('matches an exact name case-insensitively and without its trailing dot, not its subdomains', () => {
    const policy = domainPolicy({ allowedDomains: ['Example.com'] });
    expect(policy.check({ host: 'example.com.', port: 80 }).verdict).toBe('allow');
    expect(policy.check({ host: 'www.example.com', port: 80 }).verdict).toBe('unlisted');
  });

  it('limits a pattern with a port to that port', () => {
    const policy = domainPolicy({ allowedDomains: ['github.com:22', '[::1]:8080'] });
    expect(policy.check({ host: 'github.com', port: 22 }).verdict).toBe('allow');
    expect(policy.check({ host: 'github.com', port: 443 }).verdict).toBe('unlisted');
    expect(policy.check({ host: '::1', port: 8080 }).verdict).toBe('allow');
  });

  it('lets a denied pattern win over every allowed one', () => {
    const policy = domainPolicy({ allowedDomains: ['*.example.com'], deniedDomains: ['secret.example.com'] });
    expect(policy.check({ host: 'secret.example.com', port: 443 })).toEqual({ verdict: 'deny', pattern: 'secret.example.com' });
    expect(policy.check({ host: 'www.example.com', port: 443 })).toEqual({ verdict: 'allow', pattern: '*.example.com' });
  });

  it('compares IP literals in canonical form', () => {
    const policy = domainPolicy({ deniedDomains: ['127.0.0.1'] });
    expect(policy.check({ host: '2130706433', port: 80 }).verdict).toBe('deny');
    expect(policy.check({ host: '0x7f.0.0.1', port: 80 }).verdict).toBe('deny');
  });

  it.each([
    '',
    '*',
    '*.',
    '**.example.com',
    'a.*.example.com',
    'example.*',
    'http://example.com',
    'example.com/path',
    'example.com:0',
    'example.com:70000',
    'exa mple.com',
    'a..b',
    '*.10.0.0.1',
    'user@example.com',
  ])('rejects %j, which cannot match, with EGRESS_INVALID_PATTERN', (pattern) => {
    expect(() => parseDomainPattern(pattern)).toThrowError(expect.objectContaining({ code: 'EGRESS_INVALID_PATTERN' }));
    expect(() => domainPolicy({ allowedDomains: ['ok.example', pattern] })).toThrowError(/domain pattern/);
  });
});
