import { StringDecoder } from 'node:string_decoder';

/** How much of a stdio server's stderr a caller gets: the last lines, within a size. */
export const STDERR_MAX_LINES = 20;
export const STDERR_MAX_CHARS = 4096;
/** Shorter saved values are left alone: redacting every "1" or "eu" would only garble the text. */
const MIN_SECRET_LENGTH = 4;
export const REDACTED = '[redacted]';

// Matching control characters is the point of these two.
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * The end of what a stdio server wrote to stderr, so a server that fails says why. It is for the caller who may use
 * that server, never for our logs: a server may echo its configuration, so the saved values (env, headers) that
 * appear in it verbatim are replaced with [redacted], and terminal escapes and control characters are removed.
 */
export class StderrTail {
  readonly #decoder = new StringDecoder('utf8');
  readonly #secrets: string[];
  /** raw text kept: room for escape sequences, and for the longest secret so a cut never leaves half of one */
  readonly #keep: number;
  readonly #longest: number;
  #raw = '';
  #cut = false;

  constructor(secrets: Iterable<string>) {
    // Longest first, so a secret that contains another is redacted whole.
    this.#secrets = [...new Set(secrets)]
      .filter((s) => s.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
    this.#longest = this.#secrets[0]?.length ?? 0;
    this.#keep = 4 * STDERR_MAX_CHARS + this.#longest;
  }

  push(chunk: Buffer | string): void {
    this.#raw += typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    // Trimmed in steps, not on every chunk, so a chatty server costs little.
    if (this.#raw.length > 2 * this.#keep) {
      this.#raw = this.#raw.slice(-this.#keep);
      this.#cut = true;
    }
  }

  text(): string {
    let raw = this.#raw;
    // What is left of a secret the cut went through is shorter than the longest one: drop that much, then the
    // rest of the line it was on.
    if (this.#cut) {
      raw = raw.slice(Math.max(0, this.#longest - 1));
      const newline = raw.indexOf('\n');
      if (newline >= 0) raw = raw.slice(newline + 1);
    }
    for (const secret of this.#secrets) raw = raw.split(secret).join(REDACTED);
    const lines = raw
      .replace(ESCAPE_SEQUENCES, '')
      .replace(/\r\n/g, '\n')
      .split('\n')
      // A carriage return redraws the line (progress bars, spinners): what a terminal would show is the last part.
      .map((line) => (line.split('\r').filter(Boolean).at(-1) ?? '').replace(CONTROL_CHARACTERS, '').trimEnd());
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    const text = lines.slice(-STDERR_MAX_LINES).join('\n');
    return text.length > STDERR_MAX_CHARS ? text.slice(-STDERR_MAX_CHARS) : text;
  }
}
