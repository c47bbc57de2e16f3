import { ProtocolErrorCode, ProtocolError, type ElicitRequest } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { declaredCapabilities, hostClientProfile, profileFor, profileKey } from '../../domain/mcp/clientProfile.js';
import { answerElicitation } from '../../domain/mcp/elicitation.js';
import { templateConfig } from '../../api/hostTemplates.js';
import { COFFEE_FORM, REGISTRATION_FORM } from '../fixtures/mcp/client-features.js';

const form = (requestedSchema = COFFEE_FORM): ElicitRequest['params'] => ({
  mode: 'form',
  message: 'How?',
  requestedSchema,
});
const urlRequest: ElicitRequest['params'] = {
  mode: 'url',
  message: 'Sign in',
  url: 'https://login.example.test/',
  elicitationId: 'e1',
};

describe('answering elicitation/create', () => {
  it('declines and cancels as told, and always declines URL mode', () => {
    expect(answerElicitation({ action: 'decline' }, form())).toEqual({ action: 'decline' });
    expect(answerElicitation({ action: 'cancel' }, form())).toEqual({ action: 'cancel' });
    for (const answer of [
      { action: 'accept' as const, content: { size: 'small', shots: 1 } },
      { mode: 'defaults' as const },
      { action: 'cancel' as const },
    ]) {
      expect(answerElicitation(answer, urlRequest)).toEqual({ action: 'decline' });
    }
  });

  it('accepts with content that fits the form', () => {
    const content = { size: 'large', shots: 4, decaf: true, note: 'oat milk' };
    expect(answerElicitation({ action: 'accept', content }, form())).toEqual({ action: 'accept', content });
  });

  it('never sends content the form does not allow: the server gets InvalidParams naming the field', () => {
    const refused: Record<string, string | number>[] = [
      { size: 'huge', shots: 2 },
      { size: 'small', shots: 9 },
      { shots: 2 },
      { size: 'small', shots: 1.5 },
    ];
    for (const content of refused) {
      let thrown: unknown;
      try {
        answerElicitation({ action: 'accept', content }, form());
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(content)).toBeInstanceOf(ProtocolError);
      expect((thrown as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams);
    }
    expect(() =>
      answerElicitation({ action: 'accept', content: { email: 'not an address' } }, form(REGISTRATION_FORM)),
    ).toThrow(/email/);
  });

  it('accepts the form as pre-filled with its defaults (SEP-1034), the given content filling in or overriding', () => {
    expect(answerElicitation({ mode: 'defaults' }, form())).toEqual({
      action: 'accept',
      content: { size: 'medium', shots: 2, decaf: false },
    });
    expect(answerElicitation({ mode: 'defaults', content: { shots: 3, note: 'to go' } }, form())).toEqual({
      action: 'accept',
      content: { size: 'medium', shots: 3, decaf: false, note: 'to go' },
    });
    expect(
      answerElicitation({ mode: 'defaults', content: { email: 'a@example.test' } }, form(REGISTRATION_FORM)),
    ).toEqual({
      action: 'accept',
      content: { email: 'a@example.test', newsletter: true },
    });
  });

  it('cancels a form whose required field has neither a default nor content: it was never submitted', () => {
    expect(answerElicitation({ mode: 'defaults' }, form(REGISTRATION_FORM))).toEqual({ action: 'cancel' });
    expect(() => answerElicitation({ mode: 'defaults', content: { shots: 7 } }, form())).toThrow(ProtocolError);
  });
});

describe('client profiles', () => {
  it('declares each feature exactly when the profile has it', () => {
    expect(declaredCapabilities({})).toEqual({});
    expect(declaredCapabilities({ elicitation: { answer: { mode: 'defaults' } }, sampling: {}, roots: [] })).toEqual({
      elicitation: { form: {} },
      sampling: {},
      roots: { listChanged: false },
    });
    expect(declaredCapabilities({ elicitation: { url: true } })).toEqual({ elicitation: { form: {}, url: {} } });
  });

  it('names equal profiles alike whatever their key order, and different ones apart', () => {
    const a = profileKey({
      elicitation: { answer: { action: 'accept', content: { size: 'small', shots: 1 } } },
      roots: [{ uri: 'file:///a', name: 'a' }],
    });
    const b = profileKey({
      roots: [{ name: 'a', uri: 'file:///a' }],
      elicitation: { answer: { content: { shots: 1, size: 'small' }, action: 'accept' } },
    });
    expect(a).toBe(b);
    expect(profileKey({ elicitation: {} })).not.toBe(profileKey({ elicitation: { url: true } }));
    expect(profileKey({ roots: [{ uri: 'file:///a' }] })).not.toBe(profileKey({ roots: [{ uri: 'file:///b' }] }));
    expect(profileKey({})).toBe('-');
  });

  it('declares elicitation for an operation that brings its own answer', () => {
    expect(profileFor({}, undefined)).toEqual({});
    expect(profileFor({ roots: [] }, { elicitation: { action: 'decline' } })).toEqual({ roots: [], elicitation: {} });
    const declared = { elicitation: { url: true } };
    expect(profileFor(declared, { elicitation: { action: 'decline' } })).toBe(declared);
  });

  it("takes a host's identity, clientCapabilities and roots, in the built-in templates' shape (v2)", () => {
    expect(hostClientProfile(templateConfig('mcpjam'))).toEqual({
      clientInfo: { name: 'mcpjam-inspector', version: '1.0.0', title: 'MCPJam Inspector' },
      elicitation: { url: true },
      sampling: {},
      roots: [],
    });
    expect(hostClientProfile(templateConfig('claude'))).toEqual({
      clientInfo: { name: 'claude-ai', version: '0.1.0' },
    });
    expect(
      hostClientProfile({ ...templateConfig('claude-code'), roots: [{ uri: 'file:///repo', name: 'repo' }] }),
    ).toEqual({
      clientInfo: { name: 'claude-code', version: '2.1.0' },
      elicitation: {},
      roots: [{ uri: 'file:///repo', name: 'repo' }],
    });
  });

  it('reads the identity under mcpProfile.initialize (v2), else at the top level (configs saved before v2)', () => {
    const v2 = {
      hostStyle: 'claude',
      modelId: 'anthropic/claude-haiku-4.5',
      serverIds: [],
      connectionDefaults: { headers: {}, requestTimeout: 10_000 },
      clientCapabilities: {
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      },
      mcpProfile: { profileVersion: 1, initialize: { clientInfo: { name: 'claude-ai', version: '0.1.0', icons: [] } } },
    };
    expect(hostClientProfile(v2)).toEqual({ clientInfo: { name: 'claude-ai', version: '0.1.0' } });
    expect(
      hostClientProfile({
        ...v2,
        clientCapabilities: { sampling: {}, elicitation: { form: {} } },
        roots: [{ uri: 'file:///w' }],
      }),
    ).toEqual({
      clientInfo: { name: 'claude-ai', version: '0.1.0' },
      sampling: {},
      elicitation: {},
      roots: [{ uri: 'file:///w' }],
    });
    // v2 wins over a leftover top-level clientInfo; the old place is read when v2 has none.
    expect(hostClientProfile({ ...v2, clientInfo: { name: 'old', version: '1' } }).clientInfo).toEqual({
      name: 'claude-ai',
      version: '0.1.0',
    });
    expect(
      hostClientProfile({ clientInfo: { name: 'old', version: '1', title: 'Old' }, protocolVersions: ['2025-06-18'] }),
    ).toEqual({
      clientInfo: { name: 'old', version: '1', title: 'Old' },
    });
    // Without a name and a version there is no identity to present: Runway presents its own.
    expect(hostClientProfile({ mcpProfile: { initialize: { clientInfo: { name: 'x' } } } })).toEqual({});
    expect(hostClientProfile({ mcpProfile: { initialize: { clientInfo: { name: '', version: '1' } } } })).toEqual({});
    expect(profileKey(hostClientProfile(templateConfig('claude')))).not.toBe(
      profileKey(hostClientProfile(templateConfig('chatgpt'))),
    );
    expect(hostClientProfile(null)).toEqual({});
    expect(hostClientProfile({ clientCapabilities: 'nonsense', roots: [{ name: 'no uri' }, 'x'] })).toEqual({
      roots: [],
    });
  });
});
