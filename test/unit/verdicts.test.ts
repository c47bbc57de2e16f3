import { describe, expect, it } from 'vitest';
import { caseVerdict, countVerdicts, finishedCount, iterationVerdict } from '../../domain/evals/verdicts.js';

/*
 * Issue 29 item 6: one definition of passed, failed and errored for an iteration and a case, which the API's counts,
 * ingest, the CLI (progress line, table, JUnit file) and the console all follow.
 */

const it_ = (status: string, result: string | null) => ({ status, result });

describe('iterationVerdict', () => {
  it('passed and failed are scored iterations (status completed); errored could not be scored (status failed)', () => {
    expect(iterationVerdict(it_('completed', 'passed'))).toBe('passed');
    expect(iterationVerdict(it_('completed', 'failed'))).toBe('failed');
    // An errored iteration's result is "failed" (it did not pass), yet it is errored, never failed: nothing was scored.
    expect(iterationVerdict(it_('failed', 'failed'))).toBe('errored');
    expect(iterationVerdict(it_('failed', null))).toBe('errored');
  });

  it('an iteration that never ran is cancelled; one that has not finished is pending', () => {
    expect(iterationVerdict(it_('cancelled', null))).toBe('cancelled');
    expect(iterationVerdict(it_('pending', null))).toBe('pending');
    expect(iterationVerdict(it_('running', null))).toBe('pending');
  });

  it('the status decides before the result: a row that says failed and passed is errored, not passed', () => {
    expect(iterationVerdict(it_('failed', 'passed'))).toBe('errored');
    expect(iterationVerdict(it_('cancelled', 'passed'))).toBe('cancelled');
  });
});

describe('countVerdicts', () => {
  const iterations = [
    it_('completed', 'passed'),
    it_('completed', 'passed'),
    it_('completed', 'failed'),
    it_('failed', 'failed'),
    it_('failed', 'failed'),
    it_('failed', 'failed'),
    it_('cancelled', null),
    it_('running', null),
    it_('pending', null),
  ];

  it('counts each verdict once: the five are disjoint and add up to the total', () => {
    const counts = countVerdicts(iterations);
    expect(counts).toEqual({ total: 9, passed: 2, failed: 1, errored: 3, cancelled: 1, pending: 2 });
    expect(counts.passed + counts.failed + counts.errored + counts.cancelled + counts.pending).toBe(counts.total);
    expect(finishedCount(counts)).toBe(6);
  });

  it('an unreachable model: 0 passed, 0 failed, 1 errored', () => {
    expect(countVerdicts([it_('failed', 'failed')])).toEqual({
      total: 1,
      passed: 0,
      failed: 0,
      errored: 1,
      cancelled: 0,
      pending: 0,
    });
  });

  it('nothing: all zero', () => {
    expect(countVerdicts([])).toEqual({ total: 0, passed: 0, failed: 0, errored: 0, cancelled: 0, pending: 0 });
  });
});

describe('caseVerdict', () => {
  const verdictOf = (...rows: [string, string | null][]) => caseVerdict(countVerdicts(rows.map(([s, r]) => it_(s, r))));

  it('a case passed when every iteration of it that finished passed', () => {
    expect(verdictOf(['completed', 'passed'], ['completed', 'passed'])).toBe('passed');
    expect(verdictOf(['completed', 'passed'], ['cancelled', null])).toBe('passed');
  });

  it('a case failed when a scored iteration missed, whatever else happened to the others', () => {
    expect(verdictOf(['completed', 'passed'], ['completed', 'failed'])).toBe('failed');
    expect(verdictOf(['failed', 'failed'], ['completed', 'failed'])).toBe('failed');
    expect(verdictOf(['completed', 'failed'], ['running', null])).toBe('failed');
  });

  it('a case errored when nothing missed but an iteration could not be scored', () => {
    expect(verdictOf(['failed', 'failed'])).toBe('errored');
    expect(verdictOf(['completed', 'passed'], ['failed', 'failed'])).toBe('errored');
  });

  it('a case with iterations still to finish and nothing wrong yet is pending; one that never ran is cancelled', () => {
    expect(verdictOf(['completed', 'passed'], ['pending', null])).toBe('pending');
    expect(verdictOf(['cancelled', null], ['cancelled', null])).toBe('cancelled');
  });
});
