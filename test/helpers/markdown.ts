/** A fenced code block of a Markdown file. */
export interface FencedBlock {
  /** 1-based line of the opening fence */
  line: number;
  /** the info string: `sh`, `json`, ... or '' */
  lang: string;
  /** the lines between the fences */
  text: string;
}

/** The fenced (```) blocks of a Markdown document, in order. Fences must start their line, as the README writes them. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { line: number; lang: string; body: string[] } | undefined;
  markdown.split('\n').forEach((line, index) => {
    if (open) {
      if (line.startsWith('```')) {
        blocks.push({ line: open.line, lang: open.lang, text: open.body.join('\n') });
        open = undefined;
      } else {
        open.body.push(line);
      }
    } else if (line.startsWith('```')) {
      open = { line: index + 1, lang: line.slice(3).trim(), body: [] };
    }
  });
  if (open) throw new Error(`the code block opened at line ${open.line} is never closed`);
  return blocks;
}

/** Relative link targets of a Markdown document (`[text](target)`), without their `#anchor`; web and mail links left out. */
export function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
    .map((target) => target.split('#')[0]);
}
