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

/** Links of a Markdown document to files of the repository or anchors (`[text](target)`): web and mail links left out. */
export function localLinks(markdown: string): { path: string; anchor?: string }[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => {
      const [path, anchor] = target.split('#');
      return anchor === undefined ? { path } : { path, anchor };
    });
}

/** The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}
