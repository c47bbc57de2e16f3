import { SseError } from '@modelcontextprotocol/client';
import { ProtocolErrorCode, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { endsSession, LOST_LOCALLY, toOperationFailure } from '../../domain/mcp/failures.js';
import { HttpRefusal, refusalsAsErrors, serverWords } from '../../domain/mcp/refusals.js';
import { LostStream } from '../../domain/mcp/resumption.js';
import type { Phase } from '../../domain/mcp/timeouts.js';

const server = { id: 'srv_1', name: 'box', url: 'https://mcp.example/mcp' };
const map = (error: unknown, phase: Phase = 'request') =>
  toOperationFailure(error, { phase, startedAt: Date.now(), server });
const fromServer = (code: number, message: string, data?: unknown) =>
  ProtocolError.fromError(code, `MCP error ${code}: ${message}`, data);

describe('toOperationFailure: what each failure becomes', () => {
  it.each([
    [
      '401 with a resource_metadata pointer',
      new HttpRefusal(
        401,
        true,
        { resourceMetadataUrl: 'https://mcp.example/.well-known/oauth-protected-resource' },
        undefined,
      ),
      'OAUTH_REQUIRED',
      undefined,
      true,
    ],
    [
      '401 without one',
      new HttpRefusal(401, true, { errorDescription: 'Missing bearer token' }, 'Missing bearer token'),
      'SERVER_UNREACHABLE',
      'SERVER_REFUSED_CREDENTIALS',
      false,
    ],
    [
      '403 insufficient_scope',
      new HttpRefusal(403, true, { error: 'insufficient_scope', scope: 'files:write' }, undefined),
      'OAUTH_REQUIRED',
      'INSUFFICIENT_SCOPE',
      false,
    ],
    ['another 403', new HttpRefusal(403, true, undefined, 'Forbidden'), 'SERVER_UNREACHABLE', 'HTTP_ERROR', true],
    [
      '404 to a request of a session',
      new HttpRefusal(404, true, undefined, 'Session not found'),
      'SERVER_UNREACHABLE',
      'SESSION_EXPIRED',
      true,
    ],
    [
      '404 to a request without one',
      new HttpRefusal(404, false, undefined, undefined),
      'SERVER_UNREACHABLE',
      'HTTP_ERROR',
      true,
    ],
    [
      '400 naming the session, to a request of one (SDK example servers)',
      new HttpRefusal(400, true, undefined, 'Bad Request: No valid session ID provided'),
      'SERVER_UNREACHABLE',
      'SESSION_EXPIRED',
      true,
    ],
    [
      'another 400 to a request of a session',
      new HttpRefusal(400, true, undefined, 'Bad Request: invalid JSON'),
      'SERVER_UNREACHABLE',
      'HTTP_ERROR',
      true,
    ],
    [
      '400 naming a session, to a request without one',
      new HttpRefusal(400, false, undefined, 'Bad Request: No valid session ID provided'),
      'SERVER_UNREACHABLE',
      'HTTP_ERROR',
      true,
    ],
    [
      "the server's -32603",
      fromServer(ProtocolErrorCode.InternalError, 'database is down'),
      'SERVER_UNREACHABLE',
      'SERVER_ERROR',
      false,
    ],
    [
      "the server's own -32000",
      fromServer(-32000, 'Bad Request: no session'),
      'SERVER_UNREACHABLE',
      'SERVER_ERROR',
      false,
    ],
    [
      'the connection closing under a request',
      new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'),
      'SERVER_UNREACHABLE',
      'CONNECTION_CLOSED',
      true,
    ],
    [
      'a response stream that could not be resumed',
      ProtocolError.fromError(LOST_LOCALLY, 'lost', new LostStream('it was resumed 3 times', 3)),
      'SERVER_UNREACHABLE',
      'STREAM_LOST',
      true,
    ],
    [
      '-32601',
      fromServer(ProtocolErrorCode.MethodNotFound, 'Method not found'),
      'FEATURE_NOT_SUPPORTED',
      'CAPABILITY_MISSING',
      false,
    ],
    ['-32602', fromServer(ProtocolErrorCode.InvalidParams, 'bad cursor'), 'VALIDATION_ERROR', 'INVALID_PARAMS', false],
    ['-32002', fromServer(-32002, 'no such resource'), 'NOT_FOUND', 'RESOURCE_NOT_FOUND', false],
    ['a request timeout', new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'), 'TIMEOUT', undefined, false],
    [
      'a legacy SSE POST refused 401',
      new Error('Error POSTing to endpoint (HTTP 401): {"message":"Missing bearer token"}'),
      'SERVER_UNREACHABLE',
      'SERVER_REFUSED_CREDENTIALS',
      false,
    ],
    [
      'a legacy SSE stream refused 403',
      new SseError(403, 'Non-200 status code (403)', undefined as never),
      'SERVER_UNREACHABLE',
      'HTTP_ERROR',
      true,
    ],
    [
      'a network failure',
      Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }),
      'SERVER_UNREACHABLE',
      'NETWORK_ERROR',
      true,
    ],
  ])('%s -> %s %s', (_label, error, code, reason, ends) => {
    const failure = map(error);
    expect(failure.code).toBe(code);
    expect(failure.details?.reason).toBe(reason);
    expect(endsSession(failure)).toBe(ends);
  });

  it('a refused credential says what the server said, and that retrying will not help', () => {
    const failure = map(new HttpRefusal(401, true, undefined, 'Missing bearer token'), 'initialize');
    expect(failure.message).toBe("server 'box' refused the request's credentials (HTTP 401): Missing bearer token");
    expect(failure.details).toEqual({
      reason: 'SERVER_REFUSED_CREDENTIALS',
      phase: 'initialize',
      status: 401,
      retryable: false,
      serverMessage: 'Missing bearer token',
    });
  });

  it('insufficient scope carries the scope and the OAUTH_REQUIRED details', () => {
    expect(
      map(new HttpRefusal(403, true, { error: 'insufficient_scope', scope: 'read admin' }, undefined)).details,
    ).toEqual({
      reason: 'INSUFFICIENT_SCOPE',
      scope: 'read admin',
      oauthRequired: true,
      serverId: 'srv_1',
      serverName: 'box',
      serverUrl: 'https://mcp.example/mcp',
    });
    expect(map(new HttpRefusal(403, true, { error: 'insufficient_scope' }, undefined)).details?.scope).toBeNull();
  });

  it('a server error says the server answered with one, with its code and cleaned message', () => {
    const failure = map(fromServer(ProtocolErrorCode.InternalError, 'MCP error -32603: disk \u001b[31mfull\u001b[0m'));
    expect(failure.message).toBe("server 'box' answered with an error: disk [31mfull [0m (-32603)");
    expect(failure.details).toEqual({
      reason: 'SERVER_ERROR',
      phase: 'request',
      retryable: false,
      mcpError: { code: -32603, message: 'disk [31mfull [0m' },
    });
  });

  it('what the server objects to in our initialize is its error, not a bad request of the caller', () => {
    expect(
      map(fromServer(ProtocolErrorCode.InvalidParams, 'Unsupported protocol version'), 'initialize').details?.reason,
    ).toBe('SERVER_ERROR');
    expect(map(fromServer(ProtocolErrorCode.MethodNotFound, 'Method not found'), 'initialize').details?.reason).toBe(
      'SERVER_ERROR',
    );
  });
});

describe('serverWords', () => {
  it('removes control and formatting characters, collapses spaces, bounds the length', () => {
    expect(serverWords('  Missing\tbearer\r\ntoken\u0007 ')).toBe('Missing bearer token');
    expect(serverWords('evil\u202etxt.exe\u2028next')).toBe('evil txt.exe next');
    const long = serverWords('x'.repeat(1000))!;
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
    expect(serverWords(' \u0000 ')).toBeUndefined();
    expect(serverWords(undefined)).toBeUndefined();
  });
});

describe('refusalsAsErrors', () => {
  const answering = (response: Response) => refusalsAsErrors(async () => response);
  const post = { method: 'POST', headers: { 'mcp-session-id': 's1' } };
  const refusal = async (response: Response, init: RequestInit = post) => {
    try {
      await answering(response)('https://mcp.example/mcp', init);
    } catch (error) {
      return error as HttpRefusal;
    }
    throw new Error('no refusal');
  };

  it("reads the challenge and the server's words: error_description first, else the body's message", async () => {
    const challenged = await refusal(
      new Response('{"message":"ignored"}', {
        status: 403,
        headers: {
          'www-authenticate':
            'Bearer error="insufficient_scope", scope="a b", error_description="needs \\"b\\"", resource_metadata="https://mcp.example/prm"',
        },
      }),
    );
    expect(challenged).toMatchObject({ status: 403, withSession: true, serverWords: 'needs "b"' });
    expect(challenged.challenge).toEqual({
      error: 'insufficient_scope',
      scope: 'a b',
      errorDescription: 'needs "b"',
      resourceMetadataUrl: 'https://mcp.example/prm',
    });

    const jsonRpc = await refusal(
      new Response('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Session not found"},"id":null}', {
        status: 404,
      }),
      { method: 'POST' },
    );
    expect(jsonRpc).toMatchObject({
      status: 404,
      withSession: false,
      challenge: undefined,
      serverWords: 'Session not found',
    });

    expect(
      (await refusal(new Response('Unauthorized\n', { status: 401, headers: { 'content-type': 'text/plain' } })))
        .serverWords,
    ).toBe('Unauthorized');
    expect((await refusal(new Response(null, { status: 500 }))).serverWords).toBeUndefined();
  });

  it('leaves successes, redirects and GETs alone', async () => {
    for (const [response, init] of [
      [new Response('{}', { status: 200 }), post],
      [new Response(null, { status: 307, headers: { location: '/elsewhere' } }), post],
      [new Response(null, { status: 404 }), { method: 'GET' }],
    ] as const) {
      expect((await answering(response)('https://mcp.example/mcp', init)).status).toBe(response.status);
    }
  });
});
