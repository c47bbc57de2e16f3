import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runway, runwayArgs, type Finished } from '../helpers/runwayCli.js';
import { setProviderKey } from '../../db/providerKeys.js';
import { apiClient } from '../helpers/http.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../fixtures/model/server.js';
import { everythingOverStdio, saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';
import { fakeRunningStack } from '../helpers/stackRecord.js';
import { freePort } from '../helpers/ports.js';

const MODEL_KEY = 'sk-model-cli-secret-51c2';
const MODEL = 'scripted-cli';

const junit = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
});

interface JUnitCase {
  name: string;
  classname: string;
  time: string;
  failure?: { message: string; '#text': string };
  error?: { message: string; '#text': string };
  skipped?: { message: string };
}

function readJunit(path: string) {
  const parsed = junit.parse(readFileSync(path, 'utf8')) as {
    testsuites: {
      name: string;
      tests: string;
      failures: string;
      testsuite: {
        name: string;
        tests: string;
        failures: string;
        errors: string;
        skipped: string;
        testcase: JUnitCase[];
        properties: { property: { name: string; value: string }[] };
      }[];
    };
  };
  return parsed.testsuites;
}

describe('runway CLI end to end', () => {
  let stack: TestStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  let serverId: string;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    stack = await startTestStack({
      config: { RATE_LIMIT_BURST: '100000', RATE_LIMIT_PER_MINUTE: '6000000', MAX_CONCURRENT_RUNS: '5' },
    });
    org = await seedOrganization(stack.sql);
    await setProviderKey(stack.sql, stack.box, {
      organizationId: org.organizationId,
      provider: 'openai',
      apiKey: 'org-key',
      baseUrl: model.url,
    });
    serverId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'everything',
      ...everythingOverStdio(),
    });
    model.setScript(MODEL, {
      byQuery: {
        'echo hello': [{ toolCalls: [{ name: 'echo', arguments: { message: 'hello' } }] }, { text: 'It said hello.' }],
        'echo wrong': [{ toolCalls: [{ name: 'echo', arguments: { message: 'bye' } }] }, { text: 'done' }],
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'runway-cli-'));
    env = { RUNWAY_URL: stack.origin, RUNWAY_API_KEY: org.apiKey, RUN_MODEL_KEY: MODEL_KEY };
  });
  afterAll(async () => {
    await stack?.stop();
    await model?.close();
  });

  const suiteFile = (name: string, tests: object[]) => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify({ suiteName: name, servers: ['everything'], tests }, null, 2));
    return path;
  };
  const testCase = (title: string, query: string, message = 'hello') => ({
    title,
    query,
    model: MODEL,
    provider: 'openai',
    runs: 2,
    expectedToolCalls: [{ toolName: 'echo', arguments: { message } }],
  });

  it('servers list, tools, call and doctor', async () => {
    const list = await runway(['servers', 'list'], env, dir);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${serverId}\\s+everything\\s+stdio\\s+yes`));

    const tools = await runway(['servers', 'tools', 'everything'], env, dir);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toMatch(/^echo\s/m);

    const call = await runway(['servers', 'call', serverId, 'echo', '--param', 'message=hello from the CLI'], env, dir);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout.trim()).toBe('Echo: hello from the CLI');

    const json = await runway(
      ['--json', 'servers', 'call', 'everything', 'get-sum', '--params', '{"a":2,"b":3}'],
      env,
      dir,
    );
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('5') }] });

    const doctor = await runway(['servers', 'doctor', 'everything'], env, dir);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/status: ready/);
    expect(doctor.stdout).toMatch(/^tools\s+ok/m);

    const missing = await runway(['servers', 'tools', 'nope'], env, dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no server "nope"');
  });

  it('servers tools on a host name that does not resolve fails at once, without retrying', async () => {
    await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'nowhere',
      transportType: 'http',
      url: 'http://runway-cli-test.invalid/mcp',
    });
    const tools = await runway(['servers', 'tools', 'nowhere'], env, dir);
    expect(tools.code).toBe(2);
    expect(tools.stderr).toMatch(/SERVER_UNREACHABLE \(HTTP 502\).*ENOTFOUND/);
    expect(tools.stderr).not.toContain('retrying');
  });

  let passingRunId: string;
  let passingSuiteId: string;
  let passingFile: string;
  let failingRunId: string;

  it('evals run: a passing run exits 0, prints the summary and writes JUnit XML a parser reads back', async () => {
    const file = suiteFile('CLI passing', [testCase('echo hello', 'echo hello')]);
    const out = join(dir, 'reports', 'pass.xml');
    const run = await runway(
      [
        'evals',
        'run',
        '--suite-file',
        file,
        '--junit',
        out,
        '--model-key-env',
        'openai=RUN_MODEL_KEY',
        '--poll-interval',
        '200',
      ],
      env,
      dir,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // Not a terminal: plain progress lines, no bar.
    expect(run.stderr).toMatch(/\[runway\] run run_\w+ started \(suite sui_\w+, 1 case, servers everything\)/);
    expect(run.stderr).toContain('[runway] 2/2 iterations finished: 2 passed, 0 failed');
    // Nothing before the run knows its iterations.
    expect(run.stderr).not.toMatch(/\d+\/0 iterations/);
    expect(run.stdout).toMatch(/^CASE\s+ITERATIONS\s+PASSED\s+FAILED\s+ERRORED\s+PASS RATE\s+MEDIAN MS\s+COST$/m);
    expect(run.stdout).toMatch(/^echo hello\s+2\s+2\s+0\s+0\s+100\.0%/m);
    expect(run.stdout).not.toContain('did not pass');
    expect(run.stdout).toContain('Result: PASSED, 2 of 2 iterations passed (100.0%; needs 100%)');
    passingRunId = /Run: (run_\w+)/.exec(run.stdout)![1];
    passingSuiteId = /started \(suite (sui_\w+)/.exec(run.stderr)![1];
    passingFile = file;

    const report = readJunit(out);
    expect(report).toMatchObject({ tests: '2', failures: '0' });
    const [suite] = report.testsuite;
    expect(suite).toMatchObject({ name: 'CLI passing', tests: '2', failures: '0', errors: '0' });
    expect(suite.testcase.map((c) => c.name)).toEqual(['echo hello #1', 'echo hello #2']);
    expect(
      suite.testcase.every((c) => c.classname === 'CLI passing' && c.failure === undefined && Number(c.time) > 0),
    ).toBe(true);
    expect(suite.properties.property).toEqual(
      expect.arrayContaining([
        { name: 'runway.runId', value: passingRunId },
        { name: 'runway.result', value: 'passed' },
      ]),
    );
    // The run used the key from the environment variable, and only that one.
    expect(new Set(model.calls(MODEL).map((c) => c.apiKey))).toEqual(new Set([MODEL_KEY]));
  });

  it('evals run: the same suite file runs again in the same suite (suite names are not unique; the CLI reruns the newest of the name)', async () => {
    const again = await runway(
      ['evals', 'run', '-f', passingFile, '--model-key-env', 'openai=RUN_MODEL_KEY', '--poll-interval', '200'],
      env,
      dir,
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stderr).toContain(`started (suite ${passingSuiteId}, 1 case,`);
    expect(again.stdout).not.toContain(`Run: ${passingRunId} `);
  });

  it('evals run --dry-run prints the plan and its expected cost from the earlier runs, and starts nothing', async () => {
    const runsBefore = await stack.sql`SELECT count(*)::int AS n FROM eval_runs`;
    const dry = await runway(
      ['evals', 'run', '-f', passingFile, '--model-key-env', 'openai=RUN_MODEL_KEY', '--iterations', '3', '--dry-run'],
      env,
      dir,
    );
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Dry run: suite CLI passing (${passingSuiteId}): 1 case x 1 model = 3 iterations`);
    expect(dry.stdout).toMatch(/^CASE\s+MODEL\s+ITERATIONS\s+BASIS\s+TOKENS\/ITERATION\s+COST$/m);
    // the two runs before it measured four iterations; the scripted model has no price
    expect(dry.stdout).toMatch(/^echo hello\s+scripted-cli\s+3\s+history \(4\)\s+\d+\s+unknown$/m);
    expect(dry.stdout).toContain('Expected cost: unknown');
    expect(dry.stdout).toContain(
      'No known price for openai/scripted-cli (an operator sets one: runway-admin model-prices)',
    );
    expect(await stack.sql`SELECT count(*)::int AS n FROM eval_runs`).toEqual(runsBefore);
  });

  it('evals run: a failing run exits 1 and its JUnit file lists the failures', async () => {
    const file = suiteFile('CLI failing', [
      testCase('echo hello', 'echo hello'),
      testCase('echo mismatch', 'echo wrong'),
    ]);
    const out = join(dir, 'fail.xml');
    const run = await runway(
      ['evals', 'run', '-f', file, '--junit', out, '--model-key-env', 'openai=RUN_MODEL_KEY', '--poll-interval', '200'],
      env,
      dir,
    );
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain('2 cases');
    expect(run.stdout).toContain(
      'Result: FAILED, 2 of 4 iterations passed (50.0%; needs 100%); 2 failed; cost unknown\n',
    );
    expect(run.stdout).toMatch(/^echo mismatch\s+2\s+0\s+2\s+0\s+0\.0%/m);
    // Why, without opening the JUnit file: the first problem of the case that did not pass.
    expect(run.stdout).toContain(
      'Why cases did not pass (the first problem of each):\n' +
        '  echo mismatch #1: the tool calls did not match: expected echo {"message":"hello"}; got echo {"message":"bye"}\n',
    );
    expect(run.stdout).not.toMatch(/^ {2}echo hello #/m);
    failingRunId = /Run: (run_\w+)/.exec(run.stdout)![1];

    const [suite] = readJunit(out).testsuite;
    expect(suite).toMatchObject({ name: 'CLI failing', tests: '4', failures: '2', errors: '0' });
    const failed = suite.testcase.filter((c) => c.failure);
    expect(failed.map((c) => c.name).sort()).toEqual(['echo mismatch #1', 'echo mismatch #2']);
    expect(failed[0].failure).toMatchObject({ message: 'the tool calls did not match the expectations' });
    expect(failed[0].failure!['#text']).toContain('expected tool calls: echo {"message":"hello"}');
    expect(failed[0].failure!['#text']).toContain('actual tool calls: echo {"message":"bye"}');
  });

  it('evals run on a terminal shows a live progress bar instead of lines', async () => {
    // `script` gives the CLI a pseudo-terminal, as an interactive shell would.
    const file = suiteFile('CLI terminal', [testCase('echo hello', 'echo hello')]);
    const command = [
      process.execPath,
      ...runwayArgs(),
      'evals',
      'run',
      '-f',
      file,
      '--model-key-env',
      'openai=RUN_MODEL_KEY',
      '--poll-interval',
      '200',
    ]
      .map((arg) => `'${arg.replace(/'/g, "'\\''")}'`)
      .join(' ');
    const started = Date.now();
    const result = await new Promise<Finished>((resolve, reject) => {
      const child = spawn('script', ['-qefc', command, '/dev/null'], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr: '', ms: Date.now() - started }));
    });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/█+ 2\/2 iterations \| 2 passed, 0 failed/);
    // The bar starts at the run's real total, never at a placeholder 0/1.
    expect(result.stdout).not.toMatch(/\d+\/1 iterations/);
    expect(result.stdout).not.toContain('[runway] 2/2 iterations finished');
    expect(result.stdout).toContain('Result: PASSED');
  });

  it('evals run cancels its run when the job is stopped (SIGTERM) and exits 130', async () => {
    model.setScript('scripted-slow', [{ delayMs: 30_000, text: 'too late' }]);
    const file = suiteFile('CLI stopped', [
      { title: 'slow', query: 'take your time', model: 'scripted-slow', provider: 'openai', runs: 1 },
    ]);
    const out = join(dir, 'stopped.xml');
    const child = spawn(
      process.execPath,
      [
        ...runwayArgs(),
        'evals',
        'run',
        '-f',
        file,
        '--junit',
        out,
        '--model-key-env',
        'openai=RUN_MODEL_KEY',
        '--poll-interval',
        '200',
      ],
      {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    const started = new Promise<string>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const id = /run (run_\w+) started/.exec(stderr)?.[1];
        if (id && stderr.includes('iterations finished')) resolve(id);
      });
    });
    const runId = await started;
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    expect(stderr).toContain(`[runway] interrupted: cancelling run ${runId}`);
    // The report is written on the way out: the unfinished iteration is <skipped>, so CI has a file to keep.
    const [suite] = readJunit(out).testsuite;
    expect(suite).toMatchObject({ name: 'CLI stopped', tests: '1', failures: '0', errors: '0', skipped: '1' });
    expect(suite.testcase[0]).toMatchObject({
      name: 'slow #1',
      skipped: {
        message: expect.stringMatching(/^(iteration cancelled|the iteration had not finished \((pending|running)\))$/),
      },
    });
    const show = await runway(['--json', 'evals', 'show', runId], env, dir);
    expect(JSON.parse(show.stdout).status).toMatch(/^(running|cancelled)$/);
    const deadline = Date.now() + 30_000;
    let status = JSON.parse(show.stdout).status as string;
    while (status === 'running' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      status = (
        (await (
          await fetch(`${stack.baseUrl}/projects/default/eval-runs/${runId}`, {
            headers: { authorization: `Bearer ${org.apiKey}` },
          })
        ).json()) as { status: string }
      ).status;
    }
    expect(status).toBe('cancelled');
  });

  it('evals run --timeout cancels the run, writes the partial report and exits 1; a long poll loop warns of nothing', async () => {
    model.setScript('scripted-slower', [{ delayMs: 20_000, text: 'too late' }]);
    const file = suiteFile('CLI timeout', [
      { title: 'slower', query: 'take longer', model: 'scripted-slower', provider: 'openai', runs: 2 },
    ]);
    const out = join(dir, 'timeout.xml');
    // Polling every 10 ms for 3 s: a few hundred waits, each of which used to leave an abort listener behind.
    const run = await runway(
      [
        'evals',
        'run',
        '-f',
        file,
        '--junit',
        out,
        '--model-key-env',
        'openai=RUN_MODEL_KEY',
        '--poll-interval',
        '10',
        '--timeout',
        '3',
      ],
      env,
      dir,
    );
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toMatch(/\[runway\] still running after 3s: cancelling run run_\w+/);
    expect(run.stderr).not.toContain('MaxListenersExceededWarning');
    expect(run.stderr).not.toMatch(/\(node:\d+\)/);
    expect(run.stdout).toMatch(/Status: (running|cancelled)/);
    const [suite] = readJunit(out).testsuite;
    expect(suite).toMatchObject({ name: 'CLI timeout', tests: '2', skipped: '2' });
    expect(suite.testcase.map((c) => c.name).sort()).toEqual(['slower #1', 'slower #2']);
  });

  it('an errored iteration is counted apart from a failed one and its reason is shown; progress line, table, JUnit and API agree', async () => {
    model.setScript('scripted-refusing', [
      { error: { status: 401, message: 'Incorrect API key provided (scripted refusal)' } },
    ]);
    const file = suiteFile('CLI errored', [
      testCase('echo hello', 'echo hello'),
      testCase('echo mismatch', 'echo wrong'),
      {
        title: 'refused',
        query: 'anything',
        model: 'scripted-refusing',
        provider: 'openai',
        runs: 2,
        expectedToolCalls: [{ toolName: 'echo' }],
      },
    ]);
    const out = join(dir, 'errored.xml');
    const run = await runway(
      ['evals', 'run', '-f', file, '--junit', out, '--model-key-env', 'openai=RUN_MODEL_KEY', '--poll-interval', '200'],
      env,
      dir,
    );
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^echo hello\s+2\s+2\s+0\s+0\s+100\.0%/m);
    expect(run.stdout).toMatch(/^echo mismatch\s+2\s+0\s+2\s+0\s+0\.0%/m);
    expect(run.stdout).toMatch(/^refused\s+2\s+0\s+0\s+2\s+0\.0%/m);
    expect(run.stdout).toMatch(/^ {2}refused #\d: errored: .*Incorrect API key provided \(scripted refusal\)/m);
    expect(run.stdout).toMatch(
      /Result: FAILED, 2 of 6 iterations passed \(33\.3%; needs 100%\); 2 failed; 2 errored before they could be scored/,
    );
    const [suite] = readJunit(out).testsuite;
    expect(suite).toMatchObject({ tests: '6', failures: '2', errors: '2' });

    // One definition (domain/evals/verdicts.ts): the last progress line, the table's columns and the API say the same.
    const runId = /Run: (run_\w+)/.exec(run.stdout)![1];
    const api = (await apiClient(stack.baseUrl, org.apiKey)('GET', `/projects/${org.projectId}/eval-runs/${runId}`))
      .body;
    expect(api.progress).toEqual({ total: 6, completed: 6, passed: 2, failed: 2, errored: 2 });
    expect(api.summary).toMatchObject({ total: 6, passed: 2, failed: 2, errored: 2 });
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('[runway] ') && l.includes('iterations finished'));
    expect(lines.at(-1)).toBe(
      `[runway] 6/6 iterations finished: ${api.progress.passed} passed, ${api.progress.failed} failed, ${api.progress.errored} errored`,
    );
    const rows = [...run.stdout.matchAll(/^(?:echo hello|echo mismatch|refused)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s/gm)];
    const column = (i: number) => rows.reduce((sum, row) => sum + Number(row[i]), 0);
    expect([column(1), column(2), column(3), column(4)]).toEqual([
      api.progress.total,
      api.progress.passed,
      api.progress.failed,
      api.progress.errored,
    ]);
    expect([suite.tests, suite.failures, suite.errors].map(Number)).toEqual([
      api.progress.total,
      api.progress.failed,
      api.progress.errored,
    ]);

    const show = await runway(['evals', 'show', runId], env, dir);
    expect(show.code).toBe(1);
    expect(show.stdout).toContain('2 failed; 2 errored before they could be scored');
  });

  it("at the organization's run cap, evals run says why and waits for a slot instead of failing", async () => {
    // Another organization, so that its five running runs (the stack's cap) hold no one else up.
    const busy = await seedOrganization(stack.sql);
    await setProviderKey(stack.sql, stack.box, {
      organizationId: busy.organizationId,
      provider: 'openai',
      apiKey: 'org-key',
      baseUrl: model.url,
    });
    await saveServer(stack.sql, stack.box, { projectId: busy.projectId, name: 'everything', ...everythingOverStdio() });
    model.setScript('scripted-hold', [{ delayMs: 90_000, text: 'held' }]);
    const call = apiClient(stack.baseUrl, busy.apiKey);
    const servers = (await call('GET', '/projects/default/servers')).body.items as { id: string }[];
    const holders: string[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        const created = await call('POST', '/projects/default/eval-runs', {
          suiteName: `holder ${i}`,
          serverIds: [servers[0].id],
          modelApiKeys: { openai: MODEL_KEY },
          tests: [{ title: 'hold', query: 'hold on', model: 'scripted-hold', provider: 'openai' }],
        });
        expect(created.status, JSON.stringify(created.body)).toBe(202);
        holders.push(created.body.runId);
      }
      const busyEnv = { ...env, RUNWAY_API_KEY: busy.apiKey };
      // A running run is neither a pass nor a failure: evals show exits 3.
      expect((await runway(['evals', 'show', holders[0]], busyEnv, dir)).code).toBe(3);

      const file = suiteFile('CLI waits for a slot', [testCase('echo hello', 'echo hello')]);
      const child = spawn(
        process.execPath,
        [
          ...runwayArgs(),
          'evals',
          'run',
          '-f',
          file,
          '--model-key-env',
          'openai=RUN_MODEL_KEY',
          '--poll-interval',
          '200',
        ],
        {
          cwd: dir,
          env: { PATH: process.env.PATH, HOME: process.env.HOME, ...busyEnv },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const waiting = new Promise<void>((resolve) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('waiting for a slot')) resolve();
        });
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await waiting;
      expect(stderr).toContain('[runway] the organization already has 5 runs running (limit 5); waiting for a slot');
      expect(stderr).not.toContain('rate limited');
      // A slot comes free: the job carries on instead of failing.
      expect((await call('POST', `/projects/default/eval-runs/${holders.shift()}/cancel`, {})).status).toBe(202);
      expect(await exited, stdout + stderr).toBe(0);
      expect(stdout).toContain('Result: PASSED');
      expect(stderr.match(/waiting for a slot/g)).toHaveLength(1);
    } finally {
      for (const runId of holders) await call('POST', `/projects/default/eval-runs/${runId}/cancel`, {});
    }
  }, 120_000);

  it('evals show prints a run and exits as CI needs (0 passed, 1 failed); --json gives the run with its iterations', async () => {
    const show = await runway(['evals', 'show', passingRunId], env, dir);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`Run: ${passingRunId} (#1)   Status: completed`);
    const failed = await runway(['evals', 'show', failingRunId], env, dir);
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stdout).toContain('Result: FAILED, 2 of 4 iterations passed');
    expect(failed.stdout).toContain('  echo mismatch #1: the tool calls did not match');
    const json = await runway(['evals', 'show', passingRunId, '--json'], env, dir);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id: passingRunId,
      status: 'completed',
      result: 'passed',
      suiteName: 'CLI passing',
      iterations: [{}, {}],
    });
  });

  it('ingest uploads a results file through a minted upload URL and saves it as a run; exits 1 when the results failed', async () => {
    const ingest = await runway(
      ['ingest', join(dir, 'fail.xml'), '--format', 'junit-xml', '--suite-name', 'CLI ingest'],
      env,
      dir,
    );
    expect(ingest.code, ingest.stdout + ingest.stderr).toBe(1);
    const [, runId] = /run (run_\w+)/.exec(ingest.stdout) ?? [];
    expect(runId, ingest.stdout).toBeDefined();
    const show = await runway(['--json', 'evals', 'show', runId], env, dir);
    expect(JSON.parse(show.stdout)).toMatchObject({
      id: runId,
      source: 'sdk',
      status: 'completed',
      result: 'failed',
      summary: { total: 4, passed: 2, failed: 2 },
    });
  });

  it("ingest of Runway's own JUnit: the suite the file names, one case per case, and the same file twice is one run", async () => {
    const file = join(dir, 'fail.xml');
    const first = await runway(['ingest', file, '--format', 'junit-xml'], env, dir);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const [, runId, suiteId] = /run (run_\w+) \(suite (sui_\w+)\)/.exec(first.stdout) ?? [];
    const call = apiClient(stack.baseUrl, org.apiKey);
    const suites = (await call('GET', '/projects/default/eval-suites')).body.items as { id: string; name: string }[];
    expect(suites.find((s) => s.id === suiteId)?.name).toBe('CLI failing');
    const iterations = (await call('GET', `/projects/default/eval-runs/${runId}/iterations?limit=200`)).body.items as {
      title: string;
      testCaseId: string;
    }[];
    expect(iterations.map((i) => i.title).sort()).toEqual([
      'echo hello',
      'echo hello',
      'echo mismatch',
      'echo mismatch',
    ]);
    expect(new Set(iterations.map((i) => i.testCaseId)).size).toBe(2);

    const again = await runway(['ingest', file, '--format', 'junit-xml'], env, dir);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(`run ${runId} (suite ${suiteId})`);
    expect(again.stdout).toContain('already ingested');
    const named = await runway(
      ['--json', 'ingest', file, '--format', 'junit-xml', '--external-run-id', 'ci-job-77'],
      env,
      dir,
    );
    expect(JSON.parse(named.stdout).runId).not.toBe(runId);
  });

  it('ingest of a Jest or Vitest JSON report saves it in a suite named after the file; passing results exit 0', async () => {
    const report = {
      testResults: [
        {
          name: '/ci/test/weather.test.ts',
          status: 'passed',
          assertionResults: [{ title: 'forecast', fullName: 'weather forecast', status: 'passed', duration: 3 }],
        },
      ],
    };
    const file = join(dir, 'weather-evals.json');
    writeFileSync(file, JSON.stringify(report));
    const ingest = await runway(['--json', 'ingest', file, '--format', 'vitest-json'], env, dir);
    expect(ingest.code, ingest.stderr).toBe(0);
    const saved = JSON.parse(ingest.stdout);
    expect(saved).toMatchObject({ result: 'passed', summary: { total: 1, passed: 1 } });
    const suites = (await apiClient(stack.baseUrl, org.apiKey)('GET', '/projects/default/eval-suites')).body.items as {
      id: string;
      name: string;
    }[];
    expect(suites.find((s) => s.id === saved.suiteId)?.name).toBe('weather-evals');
  });

  it('fails clearly (exit 2) without a key, with a bad key, and with a bad suite file', async () => {
    const noKey = await runway(['servers', 'list'], { RUNWAY_URL: stack.origin }, dir);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('RUNWAY_API_KEY is not set');
    expect(noKey.stderr).toContain('npm run -s admin -- key create');
    expect(noKey.stderr).not.toContain('settings page');
    // The exit codes a CI job gates on are in --help.
    const help = await runway(['--help'], {}, dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Exit codes:\n {2}0 {4}done/m);
    expect(help.stdout).toMatch(/^ {2}3 {4}evals show: the run has not finished yet$/m);
    expect((await runway(['ingest', '--help'], {}, dir)).stdout).toContain('1 they were saved and failed');
    const badKey = await runway(['servers', 'list'], { ...env, RUNWAY_API_KEY: 'sk_not_a_real_key' }, dir);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toMatch(/UNAUTHORIZED \(HTTP 401\)/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ suiteName: 'x', servers: ['everything'], tests: [{ title: 'no query' }] }));
    const invalid = await runway(['evals', 'run', '-f', bad], env, dir);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('tests.0.query');
    const missingEnv = await runway(
      ['evals', 'run', '-f', suiteFile('x', [testCase('a', 'b')]), '--model-key-env', 'openai=NOT_SET_ANYWHERE'],
      env,
      dir,
    );
    expect(missingEnv.code).toBe(2);
    expect(missingEnv.stderr).toContain('NOT_SET_ANYWHERE is not set');
  });

  it('without RUNWAY_URL, goes to the npm start that runs in its data folder, and names what it could not reach (issue 29 §7)', async () => {
    const running = await fakeRunningStack({
      url: stack.origin,
      databaseUrl: 'postgres://x@127.0.0.1:1/x',
      embeddedDatabase: true,
    });
    try {
      const listed = await runway(
        ['--json', 'servers', 'list'],
        { RUNWAY_API_KEY: org.apiKey, RUNWAY_DATA_DIR: running.dataDir },
        dir,
      );
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout).map((s: { id: string }) => s.id)).toContain(serverId);
    } finally {
      await running.stop();
    }
    const gone = await fakeRunningStack({
      url: `http://127.0.0.1:${await freePort()}`,
      databaseUrl: 'postgres://x@127.0.0.1:1/x',
      embeddedDatabase: true,
    });
    try {
      const refused = await runway(
        ['servers', 'list'],
        { RUNWAY_API_KEY: org.apiKey, RUNWAY_DATA_DIR: gone.dataDir },
        dir,
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`cannot reach Runway at ${gone.record.url} (ECONNREFUSED)`);
      expect(refused.stderr).toContain(`the npm start running in ${gone.dataDir} (pid ${gone.record.pid})`);
    } finally {
      await gone.stop();
    }
  });

  it('never lets the API key or the model key reach the logs', () => {
    const logs = stack.logs.join('');
    expect(logs).toContain('"requestId"');
    expect(logs).not.toContain(org.apiKey);
    expect(logs).not.toContain(MODEL_KEY);
  });
});

describe('runway CLI retries', () => {
  let server: Server;
  let origin: string;
  const seen: { at: number; status: number }[] = [];

  beforeAll(async () => {
    // A stand-in API: 429 with Retry-After: 1, then 503, then the answer.
    const replies = [429, 503, 200];
    const app = express();
    app.get('/api/v1/projects/default/servers', (_req, res) => {
      const status = replies.shift() ?? 200;
      seen.push({ at: Date.now(), status });
      if (status === 429)
        return void res.status(429).set('Retry-After', '1').json({ code: 'RATE_LIMITED', message: 'slow down' });
      if (status === 503) return void res.status(503).send('upstream unavailable');
      res.json({
        items: [{ id: 'srv_1', name: 'one', enabled: true, transportType: 'stdio', useOAuth: false, url: '' }],
      });
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('waits at least Retry-After on 429, retries a 503, then succeeds', async () => {
    const result = await runway(['servers', 'list'], { RUNWAY_URL: origin, RUNWAY_API_KEY: 'sk_test' }, tmpdir());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/srv_1\s+one/);
    expect(seen.map((s) => s.status)).toEqual([429, 503, 200]);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(1000);
    expect(result.stderr).toMatch(/rate limited; retrying in 1\.\ds/);
    expect(result.stderr).toMatch(/HTTP 503; retrying in/);
  });
});
