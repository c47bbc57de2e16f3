import { LINT_TIME_MS, toReport, type LintField, type LintFinding, type LintReport } from './findings.js';
import { nameProblems, namingGuidance } from './names.js';
import { SchemaChecker, walkSchema } from './schemas.js';
import { textHits } from './text.js';
import { DESCRIPTION_TOKENS_MAX, TokenCounter } from './tokens.js';

export * from './findings.js';
export { DESCRIPTION_TOKENS_MAX } from './tokens.js';

/**
 * Tool definition lint: what in a server's tool list will trip a client or mislead a model (docs/SERVER-CHECKS.md,
 * "Tool lint"). Pure: it reads the listed tools and nothing else. `lint` checks one server's tools; `lintSuite` the
 * names that several servers of one suite share.
 */

/** A listed tool as the lint reads it: what a server sent, none of it trusted to have the right types. */
export interface LintedTool {
  name: string;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

export interface LintOptions {
  /** the negotiated protocol revision (initInfo.protocolVersion): which spec the messages cite */
  protocolRevision: string | null;
  serverName?: string;
}

/** One server's tools, linted. */
export function lint(tools: readonly LintedTool[], options: LintOptions): LintReport {
  const findings: LintFinding[] = [];
  const schemas = new SchemaChecker();
  const tokens = new TokenCounter();
  const seen = new Map<string, number>();
  const deadline = Date.now() + LINT_TIME_MS;
  let incomplete: LintReport['incomplete'] = null;

  for (const [index, tool] of tools.entries()) {
    if (Date.now() > deadline) {
      incomplete = {
        toolsLinted: index,
        toolsListed: tools.length,
        reason: `linting took more than ${LINT_TIME_MS} ms: the tools after the first ${index} were not linted`,
      };
      break;
    }
    const name = String(tool.name);
    const add = (finding: Omit<LintFinding, 'tool'>) => findings.push({ tool: name, ...finding });

    // ---- the name ----
    for (const problem of nameProblems(name, options.protocolRevision))
      add({
        rule: 'name-invalid',
        severity: 'warning',
        field: 'name',
        message: problem.message,
        ...spanned(problem.span),
      });
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    if (count === 2) {
      add({
        rule: 'name-duplicate',
        severity: 'error',
        field: 'name',
        message: `the server lists two tools named ${JSON.stringify(name)}: a call by name reaches only one of them (names SHOULD be unique within a server, ${namingGuidance(options.protocolRevision)})`,
      });
    }

    // ---- the description ----
    const description = typeof tool.description === 'string' ? tool.description : '';
    if (description.trim() === '') {
      add({
        rule: 'description-missing',
        severity: 'warning',
        field: 'description',
        message:
          description === ''
            ? 'the tool has no description: a model chooses tools by their descriptions'
            : "the tool's description is blank: a model chooses tools by their descriptions",
      });
    } else {
      const counted = tokens.countOver(description, DESCRIPTION_TOKENS_MAX);
      if (counted && counted.tokens > DESCRIPTION_TOKENS_MAX) {
        add({
          rule: 'description-long',
          severity: 'warning',
          field: 'description',
          tokens: counted.tokens,
          message: `the description is ${counted.complete ? '' : 'at least '}${counted.tokens} tokens (o200k_base), more than ${DESCRIPTION_TOKENS_MAX}: every tool's description goes into the model's context on every turn`,
        });
      } else if (
        counted &&
        !counted.complete &&
        counted.tokens === 0 &&
        description.length > 4 * DESCRIPTION_TOKENS_MAX
      ) {
        add({
          rule: 'description-long',
          severity: 'warning',
          field: 'description',
          message: `the description is ${description.length} characters long (not counted in tokens: this lint counted as many as it may), likely more than ${DESCRIPTION_TOKENS_MAX} tokens`,
        });
      }
    }

    // ---- texts a model reads: the name, title, description, annotations.title ----
    const texts: { field: Extract<LintField, 'title' | 'description'>; text: string; pointer?: string }[] = [
      { field: 'description', text: description },
      ...(typeof tool.title === 'string' ? [{ field: 'title' as const, text: tool.title }] : []),
    ];
    const annotationTitle = (tool.annotations as { title?: unknown } | undefined)?.title;
    if (typeof annotationTitle === 'string')
      texts.push({ field: 'title', text: annotationTitle, pointer: '/annotations/title' });
    for (const { field, text, pointer } of texts) {
      for (const hit of textHits(text)) {
        add({
          rule: hit.rule,
          severity: 'warning',
          field,
          ...(pointer ? { pointer } : {}),
          span: hit.span,
          message: `the ${pointer ? 'annotations.title' : field} ${hit.what} at ${hit.span.start}–${hit.span.end}: ${JSON.stringify(hit.span.text)}`,
        });
      }
    }

    // ---- the schemas, and the descriptions inside them ----
    for (const field of ['inputSchema', 'outputSchema'] as const) {
      const schema = tool[field];
      if (schema === undefined && field === 'outputSchema') continue;
      for (const problem of schemas.check(schema, field)) {
        const rule =
          problem.kind === 'invalid'
            ? 'schema-invalid'
            : problem.kind === 'not-object'
              ? 'schema-not-object'
              : 'schema-unchecked';
        add({
          rule,
          severity: problem.kind === 'unchecked' ? 'warning' : 'error',
          field,
          ...(problem.pointer !== undefined ? { pointer: problem.pointer } : {}),
          message: problem.message,
        });
      }
      if (typeof schema !== 'object' || schema === null) continue;
      for (const { pointer, text } of walkSchema(schema).texts) {
        for (const hit of textHits(text)) {
          add({
            rule: hit.rule,
            severity: 'warning',
            field,
            pointer,
            span: hit.span,
            message: `the ${field}'s ${pointer.endsWith('/title') ? 'title' : 'description'} at ${pointer} ${hit.what} at ${hit.span.start}–${hit.span.end}: ${JSON.stringify(hit.span.text)}`,
          });
        }
      }
    }
  }
  return toReport(options.protocolRevision, findings, incomplete);
}

const spanned = (span: LintFinding['span']) => (span ? { span } : {});

/** One server of a suite, with the tools it listed. */
export interface SuiteServerTools {
  serverId: string;
  name: string;
  tools: readonly { name: string }[];
}

/**
 * The names two or more servers of one suite list: a model sees both tools under one name (or, in Runway's runs,
 * one renamed `<server>__<tool>`), and a case that expects the name cannot say which server's tool it means.
 */
export function lintSuite(servers: readonly SuiteServerTools[]): LintFinding[] {
  const owners = new Map<string, { serverId: string; name: string }[]>();
  for (const server of servers) {
    for (const name of new Set(server.tools.map((t) => t.name))) {
      const list = owners.get(name) ?? [];
      list.push({ serverId: server.serverId, name: server.name });
      owners.set(name, list);
    }
  }
  const findings: LintFinding[] = [];
  for (const [tool, list] of owners) {
    if (list.length < 2) continue;
    findings.push({
      rule: 'name-shared-across-servers',
      severity: 'warning',
      tool,
      field: 'name',
      servers: list,
      message: `${list.length} servers of the suite list a tool named ${JSON.stringify(tool)} (${list.map((s) => JSON.stringify(s.name)).join(', ')}): a model cannot tell them apart, and a case expecting ${JSON.stringify(tool)} cannot say which server's tool it means (MCP 2026-07-28, server/tools: names are unique only within a server; clients SHOULD disambiguate)`,
    });
  }
  return findings;
}
