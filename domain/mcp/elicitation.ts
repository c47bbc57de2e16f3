import { ProtocolErrorCode, ProtocolError, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/client';
import { UntrustedSchemaValidator } from '../untrustedSchema.js';
import type { ElicitationAnswer, ElicitationValue } from './clientProfile.js';

type FormSchema = Extract<ElicitRequest['params'], { requestedSchema: unknown }>['requestedSchema'];

/** The answer when nobody said otherwise. */
export const DECLINE: ElicitationAnswer = { action: 'decline' };

/**
 * Answers an elicitation/create request the way a user of a client would, had they been told `answer`:
 * - URL mode is declined: Runway cannot open a page for anyone.
 * - decline / cancel as given.
 * - accept: the given content, which must fit the requested form; content that does not is never sent (the
 *   server gets an InvalidParams error saying why, as a form would not let a user submit it).
 * - defaults (SEP-1034: "clients SHOULD pre-populate form fields with these values"): the form as pre-filled with
 *   each field's default, `content` filling in or overriding fields; a required field left empty means the form
 *   was never submitted, which the spec calls `cancel` ("dismissed without making an explicit choice").
 */
export function answerElicitation(answer: ElicitationAnswer, params: ElicitRequest['params']): ElicitResult {
  if (params.mode === 'url' || !('requestedSchema' in params)) return { action: 'decline' };
  if ('action' in answer && answer.action !== 'accept') return { action: answer.action };
  const schema = params.requestedSchema;
  const content = 'mode' in answer ? { ...defaultsOf(schema), ...answer.content } : answer.content;
  if ('mode' in answer && (schema.required ?? []).some((field) => content[field] === undefined))
    return { action: 'cancel' };
  // A validator of its own per request: Ajv keeps every schema it compiles, and servers send new ones every time.
  const checked = new UntrustedSchemaValidator().getValidator(schema)(content);
  if (!checked.valid) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the elicitation answer given to Runway does not fit the requested form: ${checked.errorMessage}`,
    );
  }
  return { action: 'accept', content };
}

function defaultsOf(schema: FormSchema): Record<string, ElicitationValue> {
  const defaults: Record<string, ElicitationValue> = {};
  for (const [field, property] of Object.entries(schema.properties)) {
    const value = (property as { default?: unknown }).default;
    if (value !== undefined) defaults[field] = value as ElicitationValue;
  }
  return defaults;
}
