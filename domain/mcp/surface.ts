import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonicalJson.js';
import { boundJson, jsonBytes } from '../jsonSize.js';

/**
 * A server's tool surface: what its tools looked like to a client at one moment (name, title, description, input and
 * output schema, annotations), normalized (tools sorted by name, keys in canonical order) and hashed, so that two
 * listings that show the same tools give the same hash whatever order they came in. Pure: the eval worker records
 * the surface each listing showed, and every export records one too (db/toolSurfaces.ts).
 */

/** The fields of a tool that make up the surface, in the order a diff reports them. */
export const SURFACE_FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
export type SurfaceField = (typeof SURFACE_FIELDS)[number];

export interface SurfaceTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

/** What was left out of a surface larger than it may be stored: the tools past the cap, and the tools cut down. */
export interface SurfaceTruncation {
  reason: 'SURFACE_TOO_LARGE';
  /** tools the server listed past maxTools or past the byte budget, left out */
  omittedTools: number;
  /** tools kept whose fields were cut to fit maxToolBytes (their names) */
  cutTools: string[];
  /** the listing itself stopped early (an export's reply budget, limits.serverReplyBytes): tools past it unseen */
  listCut?: boolean;
}

export interface ToolSurface {
  tools: SurfaceTool[];
  truncated?: SurfaceTruncation;
}

export interface SurfaceLimits {
  /** tools kept at most (a hostile server may list 10k) */
  maxTools: number;
  /** the JSON of one tool at most: larger ones are cut (boundJson), the name always kept */
  maxToolBytes: number;
  /** the JSON of the whole surface at most */
  maxSurfaceBytes: number;
}

export const SURFACE_LIMITS: SurfaceLimits = {
  maxTools: 1000,
  maxToolBytes: 64 * 1024,
  maxSurfaceBytes: 1024 * 1024,
};

const MAX_NAME_LENGTH = 1024;

/** One tool with only the surface's fields (what the server sent besides, `_meta` say, is not the surface). */
function surfaceTool(tool: SurfaceTool): SurfaceTool {
  const kept: SurfaceTool = { name: String(tool.name).slice(0, MAX_NAME_LENGTH) };
  for (const field of SURFACE_FIELDS) {
    const value = tool[field];
    if (value === undefined || value === null) continue;
    // canonical JSON once parsed back: keys sorted, undefined left out, the same value whatever order it came in
    (kept as unknown as Record<string, unknown>)[field] = JSON.parse(canonicalJson(value)) as unknown;
  }
  return kept;
}

const byName = (a: SurfaceTool, b: SurfaceTool) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The surface of a listing: the tools' surface fields, sorted by name, bounded by `limits` (the tools past the cap
 * left out, a tool too large cut, keeping its name), the truncation said in the surface. A name listed twice keeps
 * its first definition.
 */
export function normalizeSurface(
  tools: readonly SurfaceTool[],
  limits: SurfaceLimits = SURFACE_LIMITS,
  listing: { cut?: boolean } = {},
): ToolSurface {
  const seen = new Set<string>();
  const unique: SurfaceTool[] = [];
  for (const tool of tools) {
    const name = String(tool.name).slice(0, MAX_NAME_LENGTH);
    if (seen.has(name)) continue;
    seen.add(name);
    unique.push(tool);
  }
  const sorted = unique.map(surfaceTool).sort(byName);
  const kept: SurfaceTool[] = [];
  const cutTools: string[] = [];
  let omitted = 0;
  let bytes = 2;
  for (const tool of sorted) {
    if (kept.length >= limits.maxTools) {
      omitted++;
      continue;
    }
    let entry = tool;
    if (jsonBytes(tool) > limits.maxToolBytes) {
      const nameBytes = jsonBytes({ name: tool.name });
      const { name: _name, ...rest } = tool;
      const bounded = boundJson(rest, Math.max(2, limits.maxToolBytes - nameBytes));
      entry = { name: tool.name, ...(bounded.value as Omit<SurfaceTool, 'name'>) };
      cutTools.push(tool.name);
    }
    const size = jsonBytes(entry) + 1;
    if (bytes + size > limits.maxSurfaceBytes) {
      omitted++;
      if (cutTools.at(-1) === tool.name) cutTools.pop();
      continue;
    }
    bytes += size;
    kept.push(entry);
  }
  if (omitted === 0 && cutTools.length === 0 && !listing.cut) return { tools: kept };
  const truncated: SurfaceTruncation = { reason: 'SURFACE_TOO_LARGE', omittedTools: omitted, cutTools };
  if (listing.cut) truncated.listCut = true;
  return { tools: kept, truncated };
}

/** sha256 (hex) of the surface's canonical JSON: equal surfaces, equal hashes. */
export function surfaceHash(surface: ToolSurface): string {
  return createHash('sha256').update(canonicalJson(surface)).digest('hex');
}

/** A hash as surfaceHash writes it: 64 lowercase hex digits. */
export const SURFACE_HASH_PATTERN = /^[0-9a-f]{64}$/;

export interface FieldChange {
  field: SurfaceField;
  /** inside a schema or the annotations: the JSON pointer (RFC 6901) of what changed; absent for the field whole */
  path?: string;
  before?: unknown;
  after?: unknown;
}

export interface ToolChange {
  name: string;
  fields: FieldChange[];
  /** changes past DiffLimits.maxChangesPerTool, left out */
  omittedChanges?: number;
}

export interface SurfaceDiff {
  added: string[];
  removed: string[];
  changed: ToolChange[];
}

export interface DiffLimits {
  /** a value (before or after) in a change is cut to this many bytes of JSON */
  maxValueBytes: number;
  /** changes listed per tool at most (the rest are summed up in one entry without values) */
  maxChangesPerTool: number;
}

export const DIFF_LIMITS: DiffLimits = { maxValueBytes: 2048, maxChangesPerTool: 100 };

const pointerToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The JSON pointers at which `a` and `b` differ, deepest first-differing place (objects key by key). */
function pointerChanges(
  a: unknown,
  b: unknown,
  path: string,
  out: { path: string; before: unknown; after: unknown }[],
) {
  if (canonicalJson(a) === canonicalJson(b)) return;
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) pointerChanges(a[key], b[key], `${path}/${pointerToken(key)}`, out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((item, index) => pointerChanges(item, b[index], `${path}/${index}`, out));
    return;
  }
  out.push({ path, before: a, after: b });
}

/** A value as a diff answers with it: bounded in size (boundJson). */
const boundValue = (value: unknown, limits: DiffLimits) =>
  value === undefined ? undefined : boundJson(value, limits.maxValueBytes).value;

/** What changed from surface `a` to surface `b`: tools added, removed, and changed field by field. */
export function diffSurfaces(a: ToolSurface, b: ToolSurface, limits: DiffLimits = DIFF_LIMITS): SurfaceDiff {
  const before = new Map(a.tools.map((t) => [t.name, t]));
  const after = new Map(b.tools.map((t) => [t.name, t]));
  const added = [...after.keys()].filter((name) => !before.has(name)).sort();
  const removed = [...before.keys()].filter((name) => !after.has(name)).sort();
  const changed: ToolChange[] = [];
  for (const name of [...before.keys()].filter((n) => after.has(n)).sort()) {
    const from = before.get(name)!;
    const to = after.get(name)!;
    const fields: FieldChange[] = [];
    for (const field of SURFACE_FIELDS) {
      const x = from[field];
      const y = to[field];
      if (canonicalJson(x) === canonicalJson(y)) continue;
      if (field === 'title' || field === 'description' || !isObject(x) || !isObject(y)) {
        fields.push(change(field, undefined, x, y, limits));
        continue;
      }
      const places: { path: string; before: unknown; after: unknown }[] = [];
      pointerChanges(x, y, '', places);
      for (const place of places) fields.push(change(field, place.path, place.before, place.after, limits));
    }
    if (fields.length === 0) continue;
    if (fields.length > limits.maxChangesPerTool)
      changed.push({
        name,
        fields: fields.slice(0, limits.maxChangesPerTool),
        omittedChanges: fields.length - limits.maxChangesPerTool,
      });
    else changed.push({ name, fields });
  }
  return { added, removed, changed };
}

function change(
  field: SurfaceField,
  path: string | undefined,
  before: unknown,
  after: unknown,
  limits: DiffLimits,
): FieldChange {
  const entry: FieldChange = { field };
  if (path !== undefined) entry.path = path;
  const b = boundValue(before, limits);
  const a = boundValue(after, limits);
  if (b !== undefined) entry.before = b;
  if (a !== undefined) entry.after = a;
  return entry;
}

/** The names of the tools a diff touches (added, removed or changed). */
export function driftedTools(diff: SurfaceDiff): Set<string> {
  return new Set([...diff.added, ...diff.removed, ...diff.changed.map((c) => c.name)]);
}

/** One line per change, for the CLI and a verdict: "the `search` tool's description changed". */
export function describeDiff(diff: SurfaceDiff): string[] {
  const lines: string[] = [];
  for (const name of diff.added) lines.push(`tool \`${name}\` added`);
  for (const name of diff.removed) lines.push(`tool \`${name}\` removed`);
  for (const tool of diff.changed) {
    const fields = [...new Set(tool.fields.map((f) => f.field))];
    lines.push(`the \`${tool.name}\` tool's ${fields.join(', ')} changed`);
  }
  return lines;
}
