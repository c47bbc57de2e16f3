import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AgentRunFailure, runAgent, type AgentRecord } from '../../domain/models/agentLoop.js';
import { createLanguageModel, type ModelProvider } from '../../domain/models/providers.js';
import { RateLimitGate, RateLimitGates } from '../../domain/models/rateLimits.js';
import {
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedRateLimit,
} from '../fixtures/model/server.js';

/**
 * Provider rate limits (issue 16, part 5): the gate a run's lanes share per provider, and the agent loop waiting at
 * it for the reset the provider gave, in each of the ways providers give it, instead of spending its retries.
 * (How each header is read is covered by models-failures.test.ts: providerRetryDelay.) No assertion here depends on
 * how fast the machine is: the gate's own waits run on fake timers or a clock the test moves, and the agent loop's
 * are checked against what the scripted provider saw (a request inside its window would have been refused again).
 */
describe('the rate-limit gate', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('closes for the delay it is given, never shorter than a reset already known', () => {
    let now = 1_000;
    const gate = new RateLimitGate('openai', () => now);
    expect(gate.remainingMs()).toBe(0);
    expect(gate.limit(500)).toBe(500);
    expect(gate.remainingMs()).toBe(500);
    gate.limit(100);
    expect(gate.remainingMs()).toBe(500);
    now += 200;
    expect(gate.remainingMs()).toBe(300);
    gate.limit(1_000);
    expect(gate.remainingMs()).toBe(1_000);
    now += 1_000;
    expect(gate.remainingMs()).toBe(0);
    expect(gate.idle(0)).toBe(true);
    expect(gate.idle(1)).toBe(false);
  });

  it('backs off 1 s, 2 s, 4 s for limits without a delay, one step for the lanes that hit the same closed gate', () => {
    let now = 0;
    const gate = new RateLimitGate('anthropic', () => now);
    expect(gate.limit()).toBe(1_000);
    // a second lane's request that left before the gate closed: told the same reset, no further step
    expect(gate.limit()).toBe(1_000);
    now += 1_000;
    expect(gate.limit()).toBe(2_000);
    now += 2_000;
    expect(gate.limit()).toBe(4_000);
    now += 4_000;
    gate.passed();
    expect(gate.limit()).toBe(1_000);
    now += 1_000;
    for (let i = 0; i < 12; i++) {
      gate.limit();
      now += 60_000;
    }
    expect(gate.limit()).toBe(30_000);
  });

  it('waits until the gate opens, and stops waiting when the signal fires', async () => {
    vi.useFakeTimers();
    const gate = new RateLimitGate('openai', () => Date.now());
    expect(await gate.wait()).toBe(0);
    gate.limit(150);
    let waited: number | undefined;
    void gate.wait().then((ms) => (waited = ms));
    await vi.advanceTimersByTimeAsync(149);
    expect(waited).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(waited).toBe(150);
    expect(gate.remainingMs()).toBe(0);

    gate.limit(60_000);
    const cancel = new AbortController();
    const waiting = gate.wait(cancel.signal);
    expect(gate.idle(0)).toBe(false);
    cancel.abort(new Error('run cancelled'));
    await expect(waiting).rejects.toThrow('run cancelled');
  });

  it('keeps one gate per run and provider, and forgets gates open and unused for two hours', () => {
    let now = 0;
    const gates = new RateLimitGates({ clock: () => now });
    const a = gates.gate('run-1', 'openai');
    expect(gates.gate('run-1', 'openai')).toBe(a);
    expect(gates.gate('run-1', 'anthropic')).not.toBe(a);
    expect(gates.gate('run-2', 'openai')).not.toBe(a);
    expect(gates.size).toBe(3);
    now += 60 * 60_000;
    a.limit(3 * 60 * 60_000);
    now += 60 * 60_000;
    // the other two are forgotten on the next look-up; the closed one is kept
    expect(gates.gate('run-1', 'openai')).toBe(a);
    expect(gates.size).toBe(1);
    expect(new RateLimitGates({ maxWaitMs: 5 }).gate('r', 'openai').maxWaitMs).toBe(5);
  });
});

describe('the agent loop at a provider that limits', () => {
  let server: ScriptedModelServer;

  beforeAll(async () => {
    server = await startScriptedModelServer();
  });
  afterAll(async () => server?.close());
  beforeEach(() => server.reset());

  const agent = (
    modelId: string,
    options: { provider?: ModelProvider; gate?: RateLimitGate; signal?: AbortSignal } = {},
  ): Promise<AgentRecord> =>
    runAgent({
      model: createLanguageModel({
        provider: options.provider ?? 'openai',
        modelName: modelId,
        apiKey: 'k',
        baseURL: server.url,
      }),
      prompt: 'hello',
      tools: [],
      maxSteps: 2,
      signal: options.signal,
      rateLimitGate: options.gate,
    });
  const limited = (modelId: string, rateLimit: ScriptedRateLimit) =>
    server.setScript(modelId, [{ rateLimit, text: 'answered' }]);
  const waits = (record: AgentRecord) => record.spans.filter((s) => s.category === 'rate-limit');

  it.each([
    ['retry-after-ms', 'openai'],
    ['retry-after', 'openai'],
    ['retry-after-date', 'openai'],
    ['reset', 'openai'],
    ['reset', 'anthropic'],
  ] as const)('waits for the reset told by %s (%s), then asks once more: no retry spent', async (header, provider) => {
    const modelId = `limited-${header}-${provider}`;
    const windowMs = 300;
    limited(modelId, { windowMs, header });
    const record = await agent(modelId, { provider });
    expect(record.text).toBe('answered');
    // asked again once, after the provider's window (the scripted provider refuses every request inside it)
    const calls = server.calls(modelId);
    expect(calls.map((c) => c.status)).toEqual([429, 200]);
    expect(calls[1]!.time - calls[0]!.time).toBeGreaterThanOrEqual(windowMs);
    const [wait] = waits(record);
    expect(waits(record)).toHaveLength(1);
    expect(wait).toMatchObject({ name: `${provider} rate limit`, provider, status: 'ok' });
    expect(wait!.delayMs).toBeGreaterThan(0);
    expect(wait!.endMs).toBeGreaterThan(wait!.startMs);
    // the wait lies between the refused request and the one that went through
    const llm = record.spans.filter((s) => s.category === 'llm');
    expect(llm.map((s) => s.status)).toEqual(['error', 'ok']);
    expect(wait!.startMs).toBeGreaterThanOrEqual(llm[0]!.endMs);
    expect(llm[1]!.startMs).toBeGreaterThanOrEqual(wait!.endMs);
  });

  it("waits for Anthropic's 529 (overloaded) as for a 429, and backs off 1 s when no header says how long", async () => {
    limited('overloaded', { windowMs: 200, status: 529, header: 'retry-after-ms' });
    const overloaded = await agent('overloaded', { provider: 'anthropic' });
    expect(server.calls('overloaded').map((c) => c.status)).toEqual([529, 200]);
    expect(waits(overloaded)).toHaveLength(1);

    limited('silent', { windowMs: 300, header: 'none' });
    const silent = await agent('silent');
    expect(server.calls('silent').map((c) => c.status)).toEqual([429, 200]);
    expect(waits(silent)[0]!.delayMs).toBeGreaterThanOrEqual(900);
  });

  it("slows down every lane sharing the run's gate until the provider's reset", async () => {
    server.setScript('shared', [{ rateLimit: { windowMs: 400 }, delayMs: 20, text: 'answered' }]);
    // The gate's clock is the test's: the gate opens when the test says the reset has come, however slow the machine.
    let now = 0;
    const gate = new RateLimitGate('openai', () => now);
    const atGate = vi.spyOn(gate, 'wait');
    const first = agent('shared', { gate });
    // the first lane was refused and waits; the second starts at the closed gate and waits before its first request
    await vi.waitFor(() => expect(atGate).toHaveBeenCalledTimes(1), { timeout: 30_000 });
    expect(gate.remainingMs()).toBe(400);
    const second = agent('shared', { gate });
    await vi.waitFor(() => expect(atGate).toHaveBeenCalledTimes(2), { timeout: 30_000 });
    now += 400;
    const records = await Promise.all([first, second]);
    expect(records.map((r) => r.text)).toEqual(['answered', 'answered']);
    expect(server.calls('shared').map((c) => c.status)).toEqual([429, 200, 200]);
    for (const record of records) expect(waits(record).map((w) => w.delayMs)).toEqual([400]);
    expect(records[1]!.spans.filter((s) => s.category === 'llm')).toHaveLength(1);
  });

  it('leaves a reset further than the gate waits for to the retry policy, after one request', async () => {
    limited('long', { windowMs: 120_000 });
    const failure = await agent('long', { gate: new RateLimitGate('openai', Date.now, 1_000) }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AgentRunFailure);
    expect((failure as AgentRunFailure).failure).toMatchObject({ kind: 'rate_limited', status: 429 });
    expect((failure as AgentRunFailure).failure.retryAfterMs).toBeGreaterThan(100_000);
    // neither waited in-process nor retried by the AI SDK before the reset
    expect(server.calls('long')).toHaveLength(1);
  });

  it('stops waiting when the run is cancelled', async () => {
    limited('cancelled', { windowMs: 30_000 });
    const cancel = new AbortController();
    const gate = new RateLimitGate('openai');
    const atGate = vi.spyOn(gate, 'wait');
    const running = agent('cancelled', { gate, signal: cancel.signal }).catch((error: unknown) => error);
    // cancelled while it waits at the gate for the reset
    await vi.waitFor(() => expect(atGate).toHaveBeenCalled(), { timeout: 30_000 });
    cancel.abort(new Error('run cancelled'));
    // long before the 30 s reset (the test's timeout)
    const failure = await running;
    expect(failure).toBeInstanceOf(AgentRunFailure);
    expect((failure as AgentRunFailure).failure.kind).toBe('aborted');
    const wait = (failure as AgentRunFailure).record.spans.find((s) => s.category === 'rate-limit');
    expect(wait).toMatchObject({ status: 'cancelled' });
    expect(server.calls('cancelled')).toHaveLength(1);
  });
});
