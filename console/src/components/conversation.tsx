import { JsonView } from './jsonView';

type Part = { type?: string; [key: string]: unknown };
type Message = { role?: string; content?: unknown };

const ROLE_WORDS: Record<string, string> = {
  system: 'System',
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool results',
};

/**
 * The conversation as the trace stores it (the AI SDK's messages): system, user, assistant text and tool calls
 * with their arguments, and the tools' results. A shape it does not know is shown as JSON, never dropped.
 */
export function Conversation({ messages }: { messages: unknown[] }) {
  if (messages.length === 0) return <p>No message was recorded.</p>;
  return (
    <ol class="conversation">
      {(messages as Message[]).map((message, i) => (
        <li key={i} class={`message message-${message.role ?? 'unknown'}`}>
          <h3 class="role">{ROLE_WORDS[message.role ?? ''] ?? message.role ?? 'Message'}</h3>
          <Content content={message.content} />
        </li>
      ))}
    </ol>
  );
}

function Content({ content }: { content: unknown }) {
  if (typeof content === 'string') return <p class="text">{content}</p>;
  if (!Array.isArray(content)) return <JsonView value={content} />;
  return (
    <>
      {(content as Part[]).map((part, i) => (
        <PartView key={i} part={part} />
      ))}
    </>
  );
}

function PartView({ part }: { part: Part }) {
  switch (part.type) {
    case 'text':
      return <p class="text">{String(part.text ?? '')}</p>;
    case 'reasoning':
      return (
        <details class="reasoning">
          <summary>Reasoning</summary>
          <p class="text">{String(part.text ?? '')}</p>
        </details>
      );
    case 'tool-call':
      return (
        <div class="tool-call">
          <p>
            Calls <code>{String(part.toolName)}</code> with
          </p>
          <JsonView value={part.input ?? part.args} label={`arguments of ${String(part.toolName)}`} />
        </div>
      );
    case 'tool-result': {
      const output = part.output as { type?: string; value?: unknown } | undefined;
      const failed = output?.type === 'error-text' || output?.type === 'error-json';
      return (
        <div class={`tool-result${failed ? ' failed' : ''}`}>
          <p>
            <code>{String(part.toolName)}</code> {failed ? 'failed with' : 'answered'}
          </p>
          <JsonView
            value={output && 'value' in output ? output.value : (part.result ?? output)}
            label={`result of ${String(part.toolName)}`}
          />
        </div>
      );
    }
    default:
      return <JsonView value={part} />;
  }
}
