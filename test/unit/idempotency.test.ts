import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors.js';
import { canonicalJson } from '../../domain/canonicalJson.js';
import { Idempotency, idempotencyKeyOf, keepsReply, requestFingerprint } from '../../api/idempotency.js';
import type {
  ClaimOutcome,
  IdempotencyKeyStore,
  IdempotencyScope,
  KeptReply,
} from '../../domain/ports/idempotencyKeys.js';

const headers = (value?: string | string[]) => ({ headers: value === undefined ? {} : { 'idempotency-key': value } });

describe('the Idempotency-Key header', () => {
  it('takes 1 to 255 printable ASCII characters, spaces included; no header is no key', () => {
    expect(idempotencyKeyOf(headers())).toBeUndefined();
    expect(idempotencyKeyOf(headers('a'))).toBe('a');
    expect(idempotencyKeyOf(headers('123e4567-e89b-12d3-a456-426614174000'))).toBe(
      '123e4567-e89b-12d3-a456-426614174000',
    );
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
    expect(idempotencyKeyOf(headers(printable))).toBe(printable);
    expect(idempotencyKeyOf(headers('k'.repeat(255)))).toBe('k'.repeat(255));
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a tab', 'a\tb'],
    ['DEL', 'a\x7fb'],
    ['a NUL', 'a\0b'],
    ['non-ASCII', 'clé'],
    ['an emoji', 'key-\u{1F511}'],
  ])('refuses %s with 400 VALIDATION_ERROR (INVALID_IDEMPOTENCY_KEY)', (_what, value) => {
    expect(() => idempotencyKeyOf(headers(value))).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_ERROR',
        status: 400,
        details: expect.objectContaining({ reason: 'INVALID_IDEMPOTENCY_KEY' }),
      }),
    );
  });

  it('refuses a header sent twice (Node gives an array for none but a few headers; a list is not a key)', () => {
    expect(() => idempotencyKeyOf(headers(['a', 'b']))).toThrow(ApiError);
  });
});

describe('the request fingerprint', () => {
  it('is the same for the same fields in any order, and undefined fields are absent ones', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
    expect(canonicalJson('é"\n')).toBe(JSON.stringify('é"\n'));
    const one = requestFingerprint({ params: { projectId: 'p' }, query: {}, body: { suiteId: 's', tests: [1, 2] } });
    const reordered = requestFingerprint({
      body: { tests: [1, 2], suiteId: 's' },
      query: {},
      params: { projectId: 'p' },
    });
    expect(one).toMatch(/^[0-9a-f]{64}$/);
    expect(reordered).toBe(one);
  });

  it('differs with the path parameters, the query, the body, array order and value types', () => {
    const base = { params: { projectId: 'p' }, query: {}, body: { suiteId: 's', tests: [1, 2] } };
    const fingerprint = requestFingerprint(base);
    for (const changed of [
      { ...base, params: { projectId: 'q' } },
      { ...base, query: { dryRun: 'true' } },
      { ...base, body: { suiteId: 's', tests: [2, 1] } },
      { ...base, body: { suiteId: 's', tests: ['1', '2'] } },
      { ...base, body: { suiteId: 's', tests: [1, 2], notes: '' } },
    ])
      expect(requestFingerprint(changed)).not.toBe(fingerprint);
    // No body at all is the empty body (an empty POST reads as `{}`).
    expect(requestFingerprint({ params: {}, query: {}, body: undefined })).toBe(
      requestFingerprint({ params: {}, query: {}, body: {} }),
    );
  });
});

describe('which replies are kept', () => {
  it('2xx and 4xx are kept; 429 and 5xx give the key up', () => {
    expect([200, 201, 202, 400, 404, 409, 422].map(keepsReply)).toEqual(Array(7).fill(true));
    expect([429, 500, 502, 504].map(keepsReply)).toEqual(Array(4).fill(false));
  });
});

/** The port in memory, with the database's semantics: one claim per scope, leases, completion by the token only. */
function memoryStore() {
  const rows = new Map<string, { fingerprint: string; token: string; reply?: KeptReply }>();
  const id = (s: IdempotencyScope) => JSON.stringify(s);
  let tokens = 0;
  let vanishOnce = false;
  const store: IdempotencyKeyStore = {
    async claim(scope, terms): Promise<ClaimOutcome | undefined> {
      const row = rows.get(id(scope));
      if (!row) {
        if (vanishOnce) {
          vanishOnce = false;
          return undefined;
        }
        const token = `t${++tokens}`;
        rows.set(id(scope), { fingerprint: terms.fingerprint, token });
        return { kind: 'claimed', token };
      }
      return row.reply
        ? { kind: 'done', fingerprint: row.fingerprint, reply: row.reply }
        : { kind: 'inProgress', fingerprint: row.fingerprint };
    },
    async renew(scope, token) {
      return rows.get(id(scope))?.token === token;
    },
    async complete(scope, token, reply) {
      const row = rows.get(id(scope));
      if (row?.token !== token) return false;
      row.reply = reply;
      return true;
    },
    async release(scope, token) {
      if (rows.get(id(scope))?.token === token) rows.delete(id(scope));
    },
  };
  return { store, rows, vanishOnce: () => (vanishOnce = true) };
}

const scope: IdempotencyScope = { organizationId: 'org', apiKeyId: 'key', route: 'POST /x', key: 'k' };
const fp = (c: string) => c.repeat(64);

describe('Idempotency.run', () => {
  it('does the work once and replays its reply as JSON text', async () => {
    const { store } = memoryStore();
    const idempotency = new Idempotency(store);
    let calls = 0;
    const work = async () => ({ status: 202, body: { runId: `run_${++calls}` } });
    expect(await idempotency.run(scope, fp('a'), work)).toEqual({
      status: 202,
      body: { runId: 'run_1' },
      replayed: false,
    });
    expect(await idempotency.run(scope, fp('a'), work)).toEqual({
      status: 202,
      text: '{"runId":"run_1"}',
      headers: {},
      replayed: true,
    });
    expect(calls).toBe(1);
  });

  it('refuses the same key with another request, done or under way: 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const { store } = memoryStore();
    const idempotency = new Idempotency(store, { waitMs: 10_000 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = idempotency.run(scope, fp('a'), async () => {
      await gate;
      return { status: 201, body: {} };
    });
    const reused = { code: 'CONFLICT', details: expect.objectContaining({ reason: 'IDEMPOTENCY_KEY_REUSED' }) };
    // Under way: refused at once, not after the wait.
    await expect(idempotency.run(scope, fp('b'), async () => ({ status: 201, body: {} }))).rejects.toMatchObject(
      reused,
    );
    release();
    await running;
    await expect(idempotency.run(scope, fp('b'), async () => ({ status: 201, body: {} }))).rejects.toMatchObject(
      reused,
    );
  });

  it('keeps a 4xx thrown by the work as its envelope; a 5xx or a 429 thrown gives the key up', async () => {
    const { store, rows } = memoryStore();
    const idempotency = new Idempotency(store);
    const notFound = new ApiError('NOT_FOUND', 'suite not found', { suiteId: 's' });
    await expect(
      idempotency.run(scope, fp('a'), async () => {
        throw notFound;
      }),
    ).rejects.toBe(notFound);
    expect(await idempotency.run(scope, fp('a'), async () => ({ status: 200, body: 1 }))).toEqual({
      status: 404,
      text: JSON.stringify({ code: 'NOT_FOUND', message: 'suite not found', details: { suiteId: 's' } }),
      headers: {},
      replayed: true,
    });
    for (const thrown of [
      new ApiError('RATE_LIMITED', 'cap', undefined, { 'Retry-After': '3' }),
      new ApiError('SERVER_UNREACHABLE', 'down'),
      new TypeError('bug'),
    ]) {
      const other = { ...scope, key: `k-${thrown.message}` };
      await expect(
        idempotency.run(other, fp('a'), async () => {
          throw thrown;
        }),
      ).rejects.toBe(thrown);
      expect(rows.has(JSON.stringify(other))).toBe(false);
    }
  });

  it('a reply larger than the bound is kept as its status only: a replay says so (409) and does nothing', async () => {
    const { store } = memoryStore();
    const idempotency = new Idempotency(store, { maxStoredBytes: 10 });
    let calls = 0;
    const work = async () => ({ status: 201, body: { big: 'x'.repeat(100), n: ++calls } });
    expect((await idempotency.run(scope, fp('a'), work)).replayed).toBe(false);
    await expect(idempotency.run(scope, fp('a'), work)).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { reason: 'IDEMPOTENT_REPLY_NOT_KEPT', status: 201 },
    });
    expect(calls).toBe(1);
  });

  it('claims again when the holder released between the two reads', async () => {
    const memory = memoryStore();
    memory.vanishOnce();
    const idempotency = new Idempotency(memory.store);
    expect(await idempotency.run(scope, fp('a'), async () => ({ status: 201, body: 'ok' }))).toMatchObject({
      status: 201,
      replayed: false,
    });
  });
});
