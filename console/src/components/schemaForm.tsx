import { useState } from 'preact/hooks';

type JsonSchema = Record<string, unknown>;

/** How one property is edited: what its JSON Schema allows, else JSON text. */
type FieldKind =
  | { kind: 'enum'; options: unknown[] }
  | { kind: 'string' }
  | { kind: 'number'; integer: boolean }
  | { kind: 'boolean' }
  | { kind: 'json' };

interface Field {
  name: string;
  id: string;
  schema: JsonSchema;
  required: boolean;
  control: FieldKind;
}

/** The property's type without `null` (`["string", "null"]` reads as a string). */
function typeOf(schema: JsonSchema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== 'null');
    return types.length === 1 && typeof types[0] === 'string' ? types[0] : undefined;
  }
  return undefined;
}

function controlFor(schema: JsonSchema): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { kind: 'enum', options: schema.enum };
  const type = typeOf(schema);
  if (type === 'string') return { kind: 'string' };
  if (type === 'number' || type === 'integer') return { kind: 'number', integer: type === 'integer' };
  if (type === 'boolean') return { kind: 'boolean' };
  return { kind: 'json' };
}

function fieldsOf(schema: JsonSchema, idPrefix: string): Field[] | null {
  const properties = schema.properties;
  if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return null;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(properties as Record<string, JsonSchema>).map(([name, property], i) => ({
    name,
    id: `${idPrefix}-${i}`,
    schema: property && typeof property === 'object' ? property : {},
    required: required.has(name),
    control: controlFor(property && typeof property === 'object' ? property : {}),
  }));
}

/** The text a field starts with: the schema's default, if any. */
function initialText(field: Field): string {
  const value = field.schema.default;
  if (value === undefined) return field.control.kind === 'boolean' && field.required ? 'false' : '';
  if (field.control.kind === 'json' || field.control.kind === 'enum') return JSON.stringify(value, null, 2);
  return String(value);
}

/** A field's text as the argument's value; undefined leaves an optional argument out. */
function valueOf(field: Field, text: string): { value?: unknown; problem?: string } {
  if (text === '' && !(field.control.kind === 'string' && field.required)) return {};
  switch (field.control.kind) {
    case 'string':
      return { value: text };
    case 'number': {
      const value = Number(text);
      if (!Number.isFinite(value)) return { problem: 'not a number' };
      if (field.control.integer && !Number.isInteger(value)) return { problem: 'not a whole number' };
      return { value };
    }
    case 'boolean':
      return { value: text === 'true' };
    case 'enum':
    case 'json':
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return { problem: 'not valid JSON' };
      }
  }
}

/**
 * A form generated from a tool's input JSON Schema: a text box for a string, a number box for a number or an
 * integer, a checkbox (or, when optional, a yes/no/unset choice) for a boolean, a select for an enum, and a JSON text
 * area for anything else (objects, arrays, unions). Required fields are marked and enforced. A schema without
 * properties gets one JSON text area for all the arguments.
 */
export function SchemaForm({
  schema,
  idPrefix,
  submitLabel,
  busy,
  onSubmit,
}: {
  schema: JsonSchema;
  idPrefix: string;
  submitLabel: string;
  busy: boolean;
  onSubmit: (args: Record<string, unknown>) => void;
}) {
  const fields = fieldsOf(schema, idPrefix);
  const whole: Field = {
    name: 'arguments',
    id: `${idPrefix}-all`,
    schema: {},
    required: false,
    control: { kind: 'json' },
  };
  const shown = fields ?? [whole];
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries(shown.map((f) => [f.name, fields ? initialText(f) : '{}'])),
  );
  const [problems, setProblems] = useState<Record<string, string>>({});

  const submit = (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    const args: Record<string, unknown> = {};
    for (const field of shown) {
      const { value, problem } = valueOf(field, texts[field.name] ?? '');
      if (problem) found[field.name] = problem;
      else if (value !== undefined) args[field.name] = value;
    }
    if (!fields && !found.arguments) {
      const all = args.arguments;
      if (all !== undefined && (all === null || typeof all !== 'object' || Array.isArray(all)))
        found.arguments = 'the arguments must be a JSON object';
    }
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    onSubmit(fields ? args : ((args.arguments as Record<string, unknown> | undefined) ?? {}));
  };

  const set = (name: string, text: string) => setTexts((t) => ({ ...t, [name]: text }));
  return (
    <form class="schema-form" onSubmit={submit} noValidate={false}>
      {shown.map((field) => (
        <FieldInput
          key={field.name}
          field={field}
          text={texts[field.name] ?? ''}
          problem={problems[field.name]}
          onText={(text) => set(field.name, text)}
        />
      ))}
      <button type="submit" disabled={busy}>
        {busy ? 'Calling…' : submitLabel}
      </button>
    </form>
  );
}

function FieldInput({
  field,
  text,
  problem,
  onText,
}: {
  field: Field;
  text: string;
  problem: string | undefined;
  onText: (text: string) => void;
}) {
  const description = typeof field.schema.description === 'string' ? field.schema.description : undefined;
  const hintId = `${field.id}-hint`;
  const problemId = `${field.id}-problem`;
  const describedBy = [description ? hintId : '', problem ? problemId : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id: field.id,
    name: field.name,
    required: field.required,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': describedBy,
  };
  const control = field.control;
  const type = typeOf(field.schema);
  let input;
  if (control.kind === 'enum') {
    input = (
      <select {...common} value={text} onChange={(e) => onText((e.currentTarget as HTMLSelectElement).value)}>
        {!field.required && <option value="">(not set)</option>}
        {field.required && text === '' && <option value="">choose…</option>}
        {control.options.map((option) => (
          <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
            {typeof option === 'string' ? option : JSON.stringify(option)}
          </option>
        ))}
      </select>
    );
  } else if (control.kind === 'boolean' && field.required) {
    input = (
      <input
        {...common}
        type="checkbox"
        required={false}
        checked={text === 'true'}
        onChange={(e) => onText((e.currentTarget as HTMLInputElement).checked ? 'true' : 'false')}
      />
    );
  } else if (control.kind === 'boolean') {
    input = (
      <select {...common} value={text} onChange={(e) => onText((e.currentTarget as HTMLSelectElement).value)}>
        <option value="">(not set)</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  } else if (control.kind === 'number') {
    input = (
      <input
        {...common}
        type="number"
        step={control.integer ? 1 : 'any'}
        value={text}
        onInput={(e) => onText((e.currentTarget as HTMLInputElement).value)}
      />
    );
  } else if (control.kind === 'string') {
    input = (
      <input
        {...common}
        type="text"
        value={text}
        onInput={(e) => onText((e.currentTarget as HTMLInputElement).value)}
      />
    );
  } else {
    input = (
      <textarea
        {...common}
        rows={4}
        spellcheck={false}
        value={text}
        onInput={(e) => onText((e.currentTarget as HTMLTextAreaElement).value)}
      />
    );
  }
  return (
    <div class={`field field-${control.kind}`}>
      <label for={field.id}>
        {field.name}
        {field.required && <span class="required"> (required)</span>}
        <span class="muted">
          {' '}
          {control.kind === 'json' ? `JSON${type ? ` ${type}` : ''}` : control.kind === 'enum' ? 'one of' : type}
        </span>
      </label>
      {input}
      {description && (
        <p id={hintId} class="hint">
          {description}
        </p>
      )}
      {problem && (
        <p id={problemId} class="error" role="alert">
          {field.name}: {problem}
        </p>
      )}
    </div>
  );
}
