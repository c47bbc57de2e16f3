import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressLine, progressView } from '../../cli/runway/progress.js';
import { counted } from '../../cli/runway/table.js';

const progress = (total: number, completed: number, passed = completed, failed = 0, errored = 0) => ({
  total,
  completed,
  passed,
  failed,
  errored,
});

function capture(isTTY: boolean) {
  let text = '';
  const stream = Object.assign(
    new Writable({ write: (chunk, _encoding, done) => ((text += chunk.toString()), done()) }),
    { isTTY, columns: 120 },
  );
  return { stream, text: () => text };
}

describe('runway evals run: progress', () => {
  it('says nothing until the run knows its iterations: no "0/0 iterations finished"', () => {
    expect(progressLine(progress(0, 0))).toBeUndefined();
    expect(progressLine(progress(4, 1, 1))).toBe('[runway] 1/4 iterations finished: 1 passed, 0 failed, 0 errored');
    const out = capture(false);
    const view = progressView(out.stream);
    for (const p of [progress(0, 0), progress(0, 0), progress(4, 0), progress(4, 0), progress(4, 2, 1, 1)])
      view.update(p);
    view.stop();
    expect(out.text()).toBe(
      '[runway] 0/4 iterations finished: 0 passed, 0 failed, 0 errored\n[runway] 2/4 iterations finished: 1 passed, 1 failed, 0 errored\n',
    );
  });

  it('an iteration that could not be scored is errored, not failed (domain/evals/verdicts.ts), as the API counts it', () => {
    // An unreachable model: the API says 0 failed, 1 errored, and so does the line.
    expect(progressLine(progress(1, 1, 0, 0, 1))).toBe(
      '[runway] 1/1 iterations finished: 0 passed, 0 failed, 1 errored',
    );
    const out = capture(true);
    const view = progressView(out.stream);
    view.update(progress(3, 3, 1, 1, 1));
    view.stop();
    expect(out.text()).toContain('1 passed, 1 failed, 1 errored');
  });

  it('on a terminal, the bar starts at the real total, never at 0/1', () => {
    const out = capture(true);
    const view = progressView(out.stream);
    view.update(progress(0, 0));
    expect(out.text()).toBe('');
    view.update(progress(4, 0));
    view.update(progress(4, 4));
    view.stop();
    expect(out.text()).toContain('0/4 iterations');
    expect(out.text()).toContain('4/4 iterations');
    expect(out.text()).not.toMatch(/\d+\/1 iterations/);
  });

  it('counts take the singular for one: "1 case", "2 cases"', () => {
    expect([counted(0, 'case'), counted(1, 'case'), counted(2, 'case'), counted(1, 'iteration')]).toEqual([
      '0 cases',
      '1 case',
      '2 cases',
      '1 iteration',
    ]);
  });
});
