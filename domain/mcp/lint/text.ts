import { MAX_FINDINGS_PER_TEXT, SPAN_TEXT_MAX, type LintRule, type LintSpan } from './findings.js';

/**
 * The text rules: what, in a tool's name, title or descriptions (its own and its schemas'), reads as addressed to the
 * model rather than describing the tool. Each hit has the exact span (UTF-16 offsets, as JavaScript and JSON count).
 */

export interface TextHit {
  rule: Extract<LintRule, 'hidden-unicode' | 'instruction-phrase' | 'model-markup'>;
  span: LintSpan;
  /** what was found, in words (the caller says where) */
  what: string;
}

// ---- escaping ----

/**
 * Characters shown as [U+XXXX] in a span: controls (but tab and newline), format characters (zero-width, bidi,
 * tags, ...), separators other than the space, unassigned and private-use code points, and variation selectors.
 */
const ESCAPED_CLASSES = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]/u;

function escaped(cp: number): boolean {
  if (cp === 0x09 || cp === 0x0a) return false;
  if (ESCAPED_CLASSES.test(String.fromCodePoint(cp))) return true;
  // Spaces other than the space, fillers that render blank, variation selectors.
  return (
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000 ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x3164 ||
    cp === 0xffa0 ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  );
}

const codePoint = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** `text` with what a person would not see written as [U+200B], at most SPAN_TEXT_MAX characters (then "…"). */
export function escapeText(text: string): string {
  let out = '';
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    const shown = escaped(cp) ? `[${codePoint(cp)}]` : char;
    if (out.length + shown.length > SPAN_TEXT_MAX - 1) return `${out}…`;
    out += shown;
  }
  return out;
}

export const spanOf = (text: string, start: number, end: number): LintSpan => ({
  start,
  end,
  text: escapeText(text.slice(start, end)),
});

// ---- hidden Unicode ----

type HiddenKind = 'zero-width' | 'bidi' | 'tag' | 'control' | 'blank' | 'variation' | 'format';

const KIND_WORDS: Record<HiddenKind, string> = {
  'zero-width': 'zero-width characters',
  bidi: 'bidirectional controls (they reorder what is shown)',
  tag: 'Unicode tag characters (invisible ASCII)',
  control: 'control characters',
  blank: 'characters that render blank (Hangul fillers)',
  variation: 'supplementary variation selectors (they can carry invisible bytes)',
  format: 'invisible format characters',
};

/** Which kind of hidden character `cp` is, or undefined for one a person sees. */
function hiddenKind(cp: number): HiddenKind | undefined {
  if (cp === 0x09 || cp === 0x0a || cp === 0x0d) return undefined;
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return 'control';
  if ((cp >= 0x200b && cp <= 0x200d) || cp === 0x2060 || cp === 0xfeff || cp === 0x180e) return 'zero-width';
  if (
    cp === 0x200e ||
    cp === 0x200f ||
    cp === 0x061c ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069)
  )
    return 'bidi';
  if (cp >= 0xe0000 && cp <= 0xe007f) return 'tag';
  if (cp >= 0xe0100 && cp <= 0xe01ef) return 'variation';
  if (cp === 0x115f || cp === 0x1160 || cp === 0x3164 || cp === 0xffa0) return 'blank';
  if (/\p{Cf}/u.test(String.fromCodePoint(cp))) return 'format';
  return undefined;
}

const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const SCRIPT_LETTER = /[\p{L}\p{M}]/u;
const LATIN = /[\p{Script=Latin}\p{Script=Common}]/u;

/**
 * Joiners that are part of writing, not hidden: a zero-width joiner inside an emoji sequence (👩‍💻), and a
 * zero-width (non-)joiner between letters of a script that uses them (Persian, Indic scripts).
 */
function joinsWriting(text: string, index: number, cp: number): boolean {
  if (cp !== 0x200c && cp !== 0x200d) return false;
  const before = [...text.slice(Math.max(0, index - 4), index)];
  // An emoji's presentation selector or skin tone may stand between the pictograph and the joiner.
  const modifier = (char: string) => {
    const at = char.codePointAt(0)!;
    return at === 0xfe0f || (at >= 0x1f3fb && at <= 0x1f3ff);
  };
  while (before.length > 0 && modifier(before[before.length - 1])) before.pop();
  const previous = before[before.length - 1];
  const next = String.fromCodePoint(text.codePointAt(index + 1) ?? 0x20);
  if (previous === undefined) return false;
  if (cp === 0x200d && PICTOGRAPHIC.test(previous) && PICTOGRAPHIC.test(next)) return true;
  return SCRIPT_LETTER.test(previous) && SCRIPT_LETTER.test(next) && !LATIN.test(previous) && !LATIN.test(next);
}

/** Runs of hidden characters: one hit per run of adjacent ones, naming their kinds. */
export function hiddenUnicode(text: string): TextHit[] {
  const hits: TextHit[] = [];
  let run: { start: number; end: number; kinds: Set<HiddenKind>; count: number; tags: string } | undefined;
  const close = () => {
    if (!run) return;
    const kinds = [...run.kinds].map((k) => KIND_WORDS[k]).join(', ');
    const tags = run.tags === '' ? '' : `; the tag characters spell ${JSON.stringify(escapeText(run.tags))}`;
    hits.push({
      rule: 'hidden-unicode',
      span: spanOf(text, run.start, run.end),
      what: `has ${run.count} hidden character${run.count === 1 ? '' : 's'} (${kinds})${tags}: a model reads them, a person does not see them`,
    });
    run = undefined;
  };
  for (let i = 0; i < text.length && hits.length < MAX_FINDINGS_PER_TEXT;) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const kind = joinsWriting(text, i, cp) ? undefined : hiddenKind(cp);
    if (kind) {
      run ??= { start: i, end: i, kinds: new Set(), count: 0, tags: '' };
      run.kinds.add(kind);
      run.count++;
      run.end = i + width;
      if (kind === 'tag' && cp >= 0xe0020 && cp <= 0xe007e) run.tags += String.fromCharCode(cp - 0xe0000);
    } else close();
    i += width;
  }
  if (hits.length < MAX_FINDINGS_PER_TEXT) close();
  return hits;
}

// ---- phrases and markup addressed to the model ----

const PHRASES: { pattern: RegExp; what: string }[] = [
  {
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+)?(?:previous|prior|above|earlier|preceding|former|existing|original|other)\s+(?:instructions?|prompts?|messages?|rules?|directions?|guidelines?|context|commands?)\b/giu,
    what: 'asks the model to drop its instructions',
  },
  {
    pattern: /\b(?:ignore|disregard|forget)\s+(?:all|any|your)\s+(?:instructions?|rules?|guidelines?|directions?)\b/giu,
    what: 'asks the model to drop its instructions',
  },
  {
    pattern:
      /\b(?:do\s+not|don['’]t|never|must\s+not)\s+(?:tell|inform|mention|reveal|disclose|notify|alert)\b[^.!?\n]{0,40}?\bthe\s+(?:user|human)\b/giu,
    what: 'asks the model to keep something from the user',
  },
  {
    pattern: /\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+the\s+(?:user|human)\b/giu,
    what: 'asks the model to act without the user knowing',
  },
  {
    pattern: /\b(?:hide|conceal|keep)\s+(?:this|it|that)\s+(?:secret\s+)?from\s+the\s+(?:user|human)\b/giu,
    what: 'asks the model to keep something from the user',
  },
  { pattern: /\bsystem[\s_-]+prompt\b/giu, what: "speaks of the model's system prompt" },
  { pattern: /\byou\s+are\s+now\b/giu, what: 'tells the model what it is now' },
];

const MARKUP: { pattern: RegExp; what: string }[] = [
  {
    pattern:
      /<\/?\s*(?:important|system|system[-_ ]?prompt|instructions?|assistant|admin|critical|hidden|override)\b[^<>]{0,200}>/giu,
    what: 'has markup addressed to the model',
  },
  {
    pattern:
      /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\|>/giu,
    what: "has a chat template's control token",
  },
  { pattern: /\[\/?INST\]|<<\/?SYS>>/gu, what: "has a chat template's instruction marker" },
];

function matches(
  text: string,
  rules: { pattern: RegExp; what: string }[],
  rule: 'instruction-phrase' | 'model-markup',
): TextHit[] {
  const hits: TextHit[] = [];
  for (const { pattern, what } of rules) {
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      // Two patterns can find the same words: one hit per place.
      if (hits.some((h) => h.span.start < end && start < h.span.end)) continue;
      hits.push({ rule, span: spanOf(text, start, end), what });
      if (hits.length >= MAX_FINDINGS_PER_TEXT) return hits;
    }
  }
  return hits.sort((a, b) => a.span.start - b.span.start);
}

/** Every text hit in `text`, in order: hidden Unicode, phrases to the model, markup to the model. */
export function textHits(text: string): TextHit[] {
  return [
    ...hiddenUnicode(text),
    ...matches(text, PHRASES, 'instruction-phrase'),
    ...matches(text, MARKUP, 'model-markup'),
  ];
}
