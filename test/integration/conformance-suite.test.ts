/**
 * Issue 32's first Done-when, end to end with nothing stood in: a saved server checked through Runway's HTTP API,
 * the check's workflow and activity in the stack's worker, the real runner spawning the official suite package
 * (`@modelcontextprotocol/conformance`, on Node 22) against the server through the loopback bridge. The server is the
 * conformance fixture (test/fixtures/mcp/conformance-*.ts), one URL serving both revisions: well-behaved, it scores
 * full marks at 2025-11-25 and at 2026-07-28; with chosen rules broken, exactly those scenarios fail, each with the
 * suite's own message, and the score says how many. (test/conformance/server-fixture.test.ts runs the suite on the
 * fixture directly, without Runway, as the independent witness that the fixture is what it says.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../../domain/mcp/conformance/report.js';
import { BREAKABLE_RULES, startConformanceFixture, type ConformanceFixture } from '../helpers/conformanceFixture.js';
import { apiClient } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/**
 * Rules broken at both revisions (one of them the Host check, which the bridge must leave to the server), and one at
 * each revision only.
 */
const BROKEN = [
  'tools-call-image',
  'prompts-get-simple',
  'dns-rebinding-protection',
  'tools-call-sampling',
  'input-required-result-multi-round',
] as const;

describe('a conformance check with the official suite', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  const fixtures: ConformanceFixture[] = [];
  const servers: Record<'good' | 'broken', string> = { good: '', broken: '' };

  beforeAll(async () => {
    stack = await startTestStack({ config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' } });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    const good = await startConformanceFixture({ revision: 'both' });
    const broken = await startConformanceFixture({ revision: 'both', break: [...BROKEN] });
    fixtures.push(good, broken);
    for (const [name, fixture] of [
      ['good', good],
      ['broken', broken],
    ] as const)
      servers[name] = await saveServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name: `conformance-${name}`,
        transportType: 'http',
        url: fixture.url,
      });
  });
  afterAll(async () => {
    await Promise.all(fixtures.map((f) => f.close()));
    await stack?.stop();
  });

  async function check(server: 'good' | 'broken', specVersion: string): Promise<ConformanceReport> {
    const base = `/projects/${org.projectId}/servers/${servers[server]}/conformance`;
    const started = await call('POST', base, { specVersion });
    expect(started.status).toBe(202);
    for (;;) {
      const reply = await call('GET', `${base}/${started.body.checkId}`);
      expect(reply.status).toBe(200);
      if (!['queued', 'running'].includes(reply.body.status)) {
        expect(reply.body).toMatchObject({ status: 'completed', error: null });
        expect(reply.body.score).toBe(reply.body.report.score.value);
        return reply.body.report;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const failedScenarios = (report: ConformanceReport) =>
    report.scenarios
      .filter((s) => s.scored && s.status === 'failed')
      .map((s) => s.name)
      .sort();

  for (const revision of ['2025-11-25', '2026-07-28'] as const) {
    it(`a well-behaved server scores full marks at ${revision}`, { timeout: 180_000 }, async () => {
      const report = await check('good', revision);
      expect(report.specVersion).toBe(revision);
      const scored = report.scenarios.filter((s) => s.scored);
      expect(scored.length).toBeGreaterThan(25);
      expect(failedScenarios(report)).toEqual([]);
      // Every scored scenario ran (none not applicable) and every one of its checks held.
      expect(scored.filter((s) => s.status !== 'passed')).toEqual([]);
      expect(report.score).toMatchObject({
        value: 100,
        passedScenarios: scored.length,
        scoredScenarios: scored.length,
        failedChecks: 0,
      });
    });

    it(`a server breaking chosen rules fails exactly those at ${revision}`, { timeout: 180_000 }, async () => {
      const report = await check('broken', revision);
      const expected = BROKEN.filter((rule) =>
        (BREAKABLE_RULES[rule].revisions as readonly string[]).includes(revision),
      ).sort();
      expect(expected.length).toBe(4);
      expect(failedScenarios(report)).toEqual(expected);
      for (const name of expected) {
        const failed = report.scenarios.find((s) => s.name === name)!.checks.filter((c) => c.status === 'failed');
        expect(failed.length).toBeGreaterThan(0);
        // the suite's own words
        for (const c of failed) expect(c.message).toEqual(expect.stringMatching(/\S/));
      }
      const scored = report.scenarios.filter((s) => s.scored).length;
      expect(report.score).toMatchObject({ scoredScenarios: scored, passedScenarios: scored - expected.length });
      expect(report.score.value).toBe(Math.floor((100 * (scored - expected.length)) / scored));
    });
  }
});
