/** Line breaks (CommonMark's and Unicode's) and every other control character: a value stays on its line. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * The ASCII punctuation that opens or closes inline Markdown: links and images (`[`, `]`, `!`), autolinks and raw
 * HTML (`<`, `>`), emphasis and code (`*`, `_`, `` ` ``), entities (`&`), headings (`#`), GFM's strikethrough and
 * tables (`~`, `|`), the escape itself, and `:` so that no URL scheme is left for GFM to turn into a link.
 */
const MARKUP = /[\\`*_[\]<>!&#~|:]/g;

/**
 * A value a tenant chose (a suite's or project's name), as literal text inside Markdown that an operator reads:
 * Temporal Web UI renders a workflow's summary and details as Markdown, so `[Sign in again](http://attacker/phish)`
 * would be a link there. Each character that can start markup is backslash-escaped (CommonMark shows `\[` as `[`),
 * and line breaks become spaces, so no block (a heading, a link definition) can start inside the value.
 * Pure, for the workflow sandbox too.
 */
export function markdownText(value: string): string {
  return value.replace(CONTROL, ' ').replace(MARKUP, (c) => `\\${c}`);
}
