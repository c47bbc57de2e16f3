import { readFileSync } from 'node:fs';

/**
 * Secrets for admin CLI options, taken from anywhere but the command line (which lands in shell history and `ps`).
 * Every secret option `--X` has two siblings: `--X-env <NAME>` (the value of this process's environment variable
 * NAME) and `--X-stdin` (read from standard input). Options that take KEY=VALUE pairs (`--env`, `--header`) take
 * `--X-env KEY=NAME` (repeatable) and read `KEY=VALUE` lines on standard input (blank lines and `#` comments
 * skipped). At most one option of a command may read standard input. A private key has no command-line form at
 * all; it also reads from a file (`--X-file <PATH>`).
 */

export const secretsHelp = `
Secrets (client secrets, API keys, header and env values) can be given three ways:
  --X-stdin        read from standard input, e.g. \`printf %s "$SECRET" | npm run -s admin -- ...\`
                   (KEY=VALUE lines for --env-stdin and --header-stdin; one option per command)
  --X-env NAME     take the value of the environment variable NAME (KEY=NAME for --env-env, --header-env)
  --X VALUE        as an argument: visible in ps and kept in shell history; avoid for real secrets
A private key (--private-key-stdin, --private-key-env NAME, --private-key-file PATH) is never an argument.`;

/** Standard input, read once, by the one option that asked for it. */
export class StandardInput {
  #text: Promise<string> | undefined;

  /** `flags`: each `--X-stdin` option and whether it was given; more than one given is refused. */
  constructor(flags: Record<string, boolean | undefined>) {
    const given = Object.keys(flags).filter((flag) => flags[flag]);
    if (given.length > 1) {
      throw new Error(
        `only one option can read standard input, and ${given.join(' and ')} were given; pass the others with their -env form`,
      );
    }
  }

  read(): Promise<string> {
    this.#text ??= (async () => {
      if (process.stdin.isTTY) process.stderr.write('reading the secret from standard input (end with Ctrl-D)...\n');
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    })();
    return this.#text;
  }
}

function fromEnvironment(name: string, option: string): string {
  // eslint-disable-next-line no-restricted-properties -- a secret in the variable the operator named: data, not a setting
  const value = process.env[name];
  if (!value) throw new Error(`${option}: environment variable ${name} is not set (or is empty)`);
  return value;
}

/**
 * A single secret from `--X`, `--X-env NAME`, `--X-file PATH` or `--X-stdin` (one trailing newline dropped);
 * undefined if none.
 */
export async function singleSecret(
  option: string,
  given: { value?: string; env?: string; file?: string; stdin?: boolean },
  input: StandardInput,
): Promise<string | undefined> {
  const forms = [
    given.stdin && `--${option}-stdin`,
    given.env !== undefined && `--${option}-env`,
    given.file !== undefined && `--${option}-file`,
    given.value !== undefined && `--${option}`,
  ].filter(Boolean);
  if (forms.length > 1) throw new Error(`give only one of ${forms.join(', ')}`);
  if (given.value !== undefined) return given.value;
  if (given.env !== undefined) return fromEnvironment(given.env, `--${option}-env`);
  if (given.file !== undefined) return fromFile(given.file, `--${option}-file`);
  if (!given.stdin) return undefined;
  const text = (await input.read()).replace(/\r?\n$/, '');
  if (!text) throw new Error(`--${option}-stdin: standard input is empty`);
  return text;
}

function fromFile(path: string, option: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`${option}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!text.trim()) throw new Error(`${option}: ${path} is empty`);
  return text;
}

const splitPair = (pair: string, what: string): [string, string] => {
  const at = pair.indexOf('=');
  if (at < 1) throw new Error(`${what}: expected KEY=VALUE`);
  return [pair.slice(0, at), pair.slice(at + 1)];
};

/** KEY=VALUE secrets from `--X KEY=VALUE`, `--X-env KEY=NAME` and `--X-stdin` lines, together; a key given twice is refused. */
export async function pairedSecrets(
  option: string,
  given: { pairs?: string[]; env?: string[]; stdin?: boolean },
  input: StandardInput,
): Promise<Record<string, string>> {
  const entries: [string, string][] = [];
  // Never echo a value in an error: the line may be a secret.
  for (const pair of given.pairs ?? []) entries.push(splitPair(pair, `--${option}`));
  for (const pair of given.env ?? []) {
    const [key, name] = splitPair(pair, `--${option}-env ${pair}`);
    entries.push([key, fromEnvironment(name, `--${option}-env ${key}`)]);
  }
  if (given.stdin) {
    const lines = (await input.read()).split(/\r?\n/);
    lines.forEach((line, i) => {
      if (!line.trim() || line.trimStart().startsWith('#')) return;
      entries.push(splitPair(line, `--${option}-stdin, line ${i + 1}`));
    });
  }
  const seen = new Set<string>();
  for (const [key] of entries) {
    if (seen.has(key)) throw new Error(`--${option}: ${key} is given twice`);
    seen.add(key);
  }
  return Object.fromEntries(entries);
}
