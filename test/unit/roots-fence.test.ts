import { describe, expect, it } from 'vitest';
import { allowedRoot, fenceProfile, requireAllowedRoots, rootPath } from '../../domain/mcp/rootsFence.js';

const stdio = (allowedRoots: string[]) =>
  ({ id: 'srv_1', name: 'files', transportType: 'stdio', allowedRoots }) as const;

describe("the fence on a host's roots (issue 27 finding 2)", () => {
  it('normalizes file URIs: dot segments, percent-encoding, repeated and trailing slashes', () => {
    expect(rootPath('file:///srv/app/')).toBe('/srv/app');
    expect(rootPath('file:///srv//app/./x/..')).toBe('/srv/app');
    expect(rootPath('file:///srv/app/../../etc')).toBe('/etc');
    expect(rootPath('file:///srv/app/%2e%2E/etc')).toBe('/srv/etc');
    expect(rootPath('file:///srv/%61pp')).toBe('/srv/app');
    expect(rootPath('file://localhost/srv/app')).toBe('/srv/app');
    // Not a folder on this machine.
    for (const uri of ['file://otherhost/srv', 'file:///srv%2Fapp', 'file:///srv/%00', 'http://x/srv', 'srv/app', ''])
      expect(rootPath(uri), uri).toBeUndefined();
  });

  it('lets through only roots inside an allowed root, as their normalized URI', () => {
    const server = stdio(['file:///srv/app/']);
    expect(allowedRoot(server, { uri: 'file:///srv/app' })).toEqual({ uri: 'file:///srv/app' });
    expect(allowedRoot(server, { uri: 'file:///srv/app/data/', name: 'd' })).toEqual({
      uri: 'file:///srv/app/data',
      name: 'd',
    });
    for (const uri of ['file:///', 'file:///srv', 'file:///srv/app/../etc', 'file:///srv/app-other', 'file:///srv/ap'])
      expect(allowedRoot(server, { uri }), uri).toBeUndefined();
    // None allowed: none passes.
    expect(allowedRoot(stdio([]), { uri: 'file:///srv/app' })).toBeUndefined();
    // A remote server cannot read this disk: its roots are names, not fenced.
    expect(allowedRoot({ ...stdio([]), transportType: 'http' }, { uri: 'file:///' })).toEqual({ uri: 'file:///' });
  });

  it('clamps a profile (roots still declared) and refuses one naming the root and the server', () => {
    const server = stdio(['file:///srv/app']);
    const profile = { sampling: {}, roots: [{ uri: 'file:///' }, { uri: 'file:///srv/app/x' }] };
    expect(fenceProfile(server, profile)).toEqual({ sampling: {}, roots: [{ uri: 'file:///srv/app/x' }] });
    expect(fenceProfile(server, { sampling: {} })).toEqual({ sampling: {} });
    expect(() => requireAllowedRoots(profile, [server])).toThrow(/root file:\/\/\/ is outside what server 'files'/);
    expect(() => requireAllowedRoots({ roots: [{ uri: 'file:///srv/app/x' }] }, [server])).not.toThrow();
  });
});
