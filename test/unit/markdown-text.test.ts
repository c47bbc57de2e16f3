import { describe, expect, it } from 'vitest';
import { markdownText } from '../../workflows/markdownText.js';
import { runUserMetadata } from '../../workflows/definitions.js';

describe('markdownText: a name shown as text inside Markdown (Temporal Web UI’s user metadata)', () => {
  it('escapes what would make a link, an image, an autolink, raw HTML or emphasis', () => {
    expect(markdownText('[Sign in again](http://attacker/phish)')).toBe('\\[Sign in again\\](http\\://attacker/phish)');
    expect(markdownText('![x](http://attacker/pixel.png)')).toBe('\\!\\[x\\](http\\://attacker/pixel.png)');
    expect(markdownText('<http://attacker>')).toBe('\\<http\\://attacker\\>');
    expect(markdownText('<img src=x onerror=alert(1)>')).toBe('\\<img src=x onerror=alert(1)\\>');
    expect(markdownText('**bold** _it_ `code` ~~gone~~')).toBe('\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\~\\~gone\\~\\~');
    expect(markdownText('a \\[b]')).toBe('a \\\\\\[b\\]');
    expect(markdownText('&lt;&#91;')).toBe('\\&lt;\\&\\#91;');
    expect(markdownText('[ref]: http://attacker')).toBe('\\[ref\\]\\: http\\://attacker');
  });

  it('keeps a value on its line: line breaks and other control characters become one space', () => {
    expect(markdownText('a\n# Heading\r\n\n[x]: http://attacker\ty\u0000z')).toBe(
      'a \\# Heading \\[x\\]\\: http\\://attacker y z',
    );
    expect(markdownText('a\u2028b\u0085c')).toBe('a b c');
  });

  it('leaves ordinary names as they are', () => {
    for (const name of ['Checkout flow', 'Nightly (CI)', 'smoke-tests v1.2', 'Überprüfung 日本語', 'a/b, c; d?'])
      expect(markdownText(name)).toBe(name);
  });

  it('is what the workflow’s summary and details show of a suite and project name', () => {
    const metadata = runUserMetadata(
      { id: 'run_1', organizationId: 'org_1', projectId: 'prj_1', suiteId: 'sui_1', source: 'api' },
      { suiteName: '[Sign in again](http://attacker/phish)', projectName: '<b>P</b>', iterations: 1 },
    );
    expect(metadata.staticSummary).toBe('Eval run of \\[Sign in again\\](http\\://attacker/phish): 1 iteration');
    expect(metadata.staticDetails).toContain('**Suite** \\[Sign in again\\](http\\://attacker/phish) (sui_1)');
    expect(metadata.staticDetails).toContain('**Project** \\<b\\>P\\</b\\> (prj_1)');
  });
});
