import { describe, expect, it } from 'vitest';
import { formatExpectedCalls, parseExpectedCalls } from '../../console/src/expectedCalls.js';
import { duration, every, interval, percent } from '../../console/src/format.js';
import { href, matchPath, parseHash } from '../../console/src/hashRoutes.js';
import { retryAfterSeconds } from '../../console/src/retryAfter.js';

/** The console's pure parts (console/src), which its browser tests reach only through the page. */
describe('the console: hash routes', () => {
  it('reads a hash into a path and a query', () => {
    const at = parseHash('#/projects/p1/runs/r2/compare?base=r1');
    expect(at.path).toBe('/projects/p1/runs/r2/compare');
    expect(at.query.get('base')).toBe('r1');
    expect(parseHash('').path).toBe('/');
    expect(parseHash('#').path).toBe('/');
    expect(parseHash('#/?project=p1').query.get('project')).toBe('p1');
  });

  it('matches patterns, decoding parameters, and nothing else', () => {
    expect(matchPath('/projects/:projectId/runs/:runId', '/projects/p%201/runs/r2')).toEqual({
      projectId: 'p 1',
      runId: 'r2',
    });
    expect(matchPath('/projects/:projectId/runs/:runId', '/projects/p1/runs/r2/compare')).toBeNull();
    expect(matchPath('/projects/:projectId/servers', '/projects/p1/suites')).toBeNull();
    expect(matchPath('/', '/')).toEqual({});
    expect(matchPath('/projects/:projectId', '/projects/%E0%A4%A')).toBeNull();
  });

  it('writes links: parameters encoded, empty query values left out; a missing parameter is a mistake', () => {
    expect(href('/projects/:projectId/runs/:runId/compare', { projectId: 'p1', runId: 'r/2' }, { base: 'r1' })).toBe(
      '#/projects/p1/runs/r%2F2/compare?base=r1',
    );
    expect(href('/', {}, { project: 'p1', source: '' })).toBe('#/?project=p1');
    expect(() => href('/projects/:projectId', {})).toThrow(/:projectId/);
    const back = parseHash(href('/projects/:projectId/suites/:suiteId', { projectId: 'a b', suiteId: 's' }));
    expect(matchPath('/projects/:projectId/suites/:suiteId', back.path)).toEqual({ projectId: 'a b', suiteId: 's' });
  });
});

describe('the console: Retry-After', () => {
  it('takes seconds or an HTTP date, waiting at least 1 s and at most 2 minutes', () => {
    expect(retryAfterSeconds('7')).toBe(7);
    expect(retryAfterSeconds('0.2')).toBe(1);
    expect(retryAfterSeconds(null)).toBe(1);
    expect(retryAfterSeconds('soon')).toBe(1);
    expect(retryAfterSeconds('100000')).toBe(120);
    // an HTTP date has whole seconds: 10.5 s from a whole second reads as 10 s
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(retryAfterSeconds(new Date(now + 10_500).toUTCString(), now)).toBe(10);
    expect(retryAfterSeconds(new Date(now + 10_000).toUTCString(), now + 200)).toBe(10);
    expect(retryAfterSeconds(new Date(now - 5_000).toUTCString(), now)).toBe(1);
  });
});

describe('the console: expected tool calls as the case form writes them', () => {
  it('reads one call a line, with optional JSON arguments, and writes them back the same', () => {
    const text = 'echo {"message":"hello"}\nget-sum';
    const calls = parseExpectedCalls(`  ${text}\n\n`);
    expect(calls).toEqual([{ toolName: 'echo', arguments: { message: 'hello' } }, { toolName: 'get-sum' }]);
    expect(formatExpectedCalls(calls)).toBe(text);
    expect(parseExpectedCalls('')).toEqual([]);
  });

  it('names the line whose arguments are not a JSON object', () => {
    expect(() => parseExpectedCalls('echo\necho {message: hi}')).toThrow(/line 2: .*JSON object/);
    expect(() => parseExpectedCalls('echo [1]')).toThrow(/line 1: the arguments must be a JSON object/);
  });
});

describe('the console: numbers in words', () => {
  it('formats rates, intervals, durations and schedules', () => {
    expect(percent(0.8333)).toBe('83%');
    expect(percent(0.955)).toBe('95.5%');
    expect(percent(1)).toBe('100%');
    expect(percent(null)).toBe('–');
    expect(interval({ low: 0.161, high: 0.752 })).toBe('16–75%');
    expect(duration(850)).toBe('850 ms');
    expect(duration(12_400)).toBe('12 s');
    expect(duration(3_400)).toBe('3.4 s');
    expect(duration(185_000)).toBe('3 min 5 s');
    expect(every(15)).toBe('every 15 min');
    expect(every(120)).toBe('every 2 h');
    expect(every(1440)).toBe('every day');
  });
});
