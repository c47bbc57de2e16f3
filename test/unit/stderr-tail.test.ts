import { describe, expect, it } from 'vitest';
import { STDERR_MAX_CHARS, STDERR_MAX_LINES, StderrTail } from '../../domain/mcp/stderrTail.js';

const SECRET = 'abcdefghij0123456789';

/** The end of a stdio server's stderr, as a caller may see it. */
describe('StderrTail', () => {
  it('keeps the last lines, within a size, newest last', () => {
    const tail = new StderrTail([]);
    for (let i = 1; i <= 100; i++) tail.push(Buffer.from(`line ${i}\n`));
    const lines = tail.text().split('\n');
    expect(lines).toHaveLength(STDERR_MAX_LINES);
    expect(lines.at(-1)).toBe('line 100');
    expect(lines[0]).toBe(`line ${100 - STDERR_MAX_LINES + 1}`);

    const long = new StderrTail([]);
    long.push(`${'a'.repeat(100_000)}THE END`);
    expect(long.text()).toHaveLength(STDERR_MAX_CHARS);
    expect(long.text().endsWith('THE END')).toBe(true);
  });

  it('removes terminal escapes and control characters; a carriage return redraws the line', () => {
    const tail = new StderrTail([]);
    tail.push('\u001b[31mred\u001b[0m and \u001b]0;title\u0007plain\u0000\u0008\r\n');
    tail.push('downloading 10%\rdownloading 55%\rdownloaded\n\tindented\n\n\n');
    expect(tail.text()).toBe('red and plain\ndownloaded\n\tindented');
  });

  it('decodes UTF-8 split across chunks', () => {
    const tail = new StderrTail([]);
    const bytes = Buffer.from('Fehler: Verzeichnis „/données“ fehlt');
    for (const byte of bytes) tail.push(Buffer.from([byte]));
    expect(tail.text()).toBe('Fehler: Verzeichnis „/données“ fehlt');
  });

  it('redacts saved values, also when split across chunks; short values are left alone', () => {
    const tail = new StderrTail([SECRET, 'eu', `${SECRET}-longer`]);
    tail.push(`token ${SECRET.slice(0, 7)}`);
    tail.push(`${SECRET.slice(7)} region eu\n`);
    tail.push(`both ${SECRET}-longer\n`);
    expect(tail.text()).toBe('token [redacted] region eu\nboth [redacted]');
  });

  it('never shows what is left of a secret the trimming cut through', () => {
    const tail = new StderrTail([SECRET]);
    // Sized so the trim lands inside the secret, followed only by escapes that clean away to nothing: without
    // care the caller would see the secret's last characters.
    tail.push(`${'x'.repeat(20_000)}${SECRET}${'\u001b[0m'.repeat(4099)}`);
    expect(tail.text()).not.toMatch(/2345|6789/);
  });
});
