import './runs.css';
import { useEffect, useState } from 'preact/hooks';
import type { z } from 'zod';
import type { serverSchema } from '../../../api/schemas/catalog';
import type {
  callToolResultSchema,
  doctorReportSchema,
  promptSchema,
  resourceEntrySchema,
  toolSchema,
} from '../../../api/schemas/serverOperations';
import { api } from '../api';
import { ErrorMessage, Loading } from '../components/feedback';
import { JsonView } from '../components/jsonView';
import { duration } from '../format';
import { useApi } from '../hooks';
import { href } from '../router';
import { paths } from '../paths';
import type { Page } from '../types';
import { SchemaForm } from '../components/schemaForm';
import { ServerConformance } from './serverConformance';
import { ToolLint } from '../components/toolLint';
import { ToolSurfacesPanel } from './serverSurfaces';

type Server = z.infer<typeof serverSchema>;
type DoctorReport = z.infer<typeof doctorReportSchema>;
type Tool = z.infer<typeof toolSchema>;
type Prompt = z.infer<typeof promptSchema>;
type Resource = z.infer<typeof resourceEntrySchema>;
type CallToolResult = z.infer<typeof callToolResultSchema>;

/**
 * A project's saved servers. Nothing talks to a server until asked: a doctor check, a list of its tools, prompts or
 * resources, or a tool call, each one request.
 */
export function ServersView({ params }: { params: Record<string, string>; query: URLSearchParams }) {
  const { projectId } = params;
  const servers = useApi<Page<Server>>(`/projects/${encodeURIComponent(projectId)}/servers`);
  return (
    <article class="servers-view">
      <nav class="crumbs" aria-label="Breadcrumbs">
        <a href={href(paths.suites)}>Projects</a> › Servers
      </nav>
      <h1>Servers</h1>
      {servers.error && <ErrorMessage error={servers.error} action="Could not list the project's servers" />}
      {servers.loading && <Loading what="Loading the servers" />}
      {servers.data && servers.data.items.length === 0 && <p>This project has no saved server.</p>}
      {servers.data?.items.map((server) => (
        <ServerPanel key={server.id} projectId={projectId} server={server} />
      ))}
    </article>
  );
}

type Listing = 'tools' | 'prompts' | 'resources';

function ServerPanel({ projectId, server }: { projectId: string; server: Server }) {
  const base = `/projects/${encodeURIComponent(projectId)}/servers/${encodeURIComponent(server.id)}`;
  const [shown, setShown] = useState<Listing | null>(null);
  const headingId = `server-${server.id}`;
  return (
    <section class="server" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {server.name} <span class="tag">{server.transportType}</span>
        {!server.enabled && <span class="badge badge-cancelled">disabled</span>}
        {server.useOAuth && <span class="tag">OAuth</span>}
      </h2>
      {server.url && (
        <p class="muted">
          <code>{server.url}</code>
        </p>
      )}
      <Doctor base={base} enabled={server.enabled} />
      <div class="actions" role="group" aria-label={`Browse ${server.name}`}>
        {(['tools', 'prompts', 'resources'] as const).map((listing) => (
          <button
            key={listing}
            type="button"
            aria-pressed={shown === listing}
            disabled={!server.enabled}
            onClick={() => setShown(shown === listing ? null : listing)}
          >
            {listing[0].toUpperCase() + listing.slice(1)}
          </button>
        ))}
      </div>
      {shown === 'tools' && <ToolList base={base} serverId={server.id} />}
      {shown === 'prompts' && <PromptList base={base} />}
      {shown === 'resources' && <ResourceList base={base} />}
      <ServerConformance base={base} server={server} />
      <ToolSurfacesPanel base={base} serverName={server.name} />
    </section>
  );
}

const DOCTOR_WORDS: Record<DoctorReport['status'], string> = {
  ready: 'ready',
  oauth_required: 'needs an OAuth grant',
  partial: 'partly working',
  error: 'not working',
};

function Doctor({ base, enabled }: { base: string; enabled: boolean }) {
  const [report, setReport] = useState<DoctorReport>();
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setReport(await api<DoctorReport>(`${base}/doctor`, { method: 'POST' }));
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="doctor">
      <button type="button" disabled={busy || !enabled} onClick={() => void run()}>
        {busy ? 'Checking…' : 'Run doctor'}
      </button>
      <span role="status" class="doctor-status">
        {report && (
          <>
            {' '}
            Doctor: <span class={`badge badge-doctor-${report.status}`}>{DOCTOR_WORDS[report.status]}</span>
          </>
        )}
      </span>
      {error && <ErrorMessage error={error} action="Could not run the doctor" />}
      {report && (
        <details class="doctor-checks">
          <summary>Checks{report.error ? `: ${report.error.message}` : ''}</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">Status</th>
                <th scope="col">Detail</th>
                <th scope="col">Took</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(report.checks).map(([name, check]) => (
                <tr key={name} class={`status-${check.status}`}>
                  <th scope="row">{name}</th>
                  <td>{check.status}</td>
                  <td>{check.detail}</td>
                  <td>{duration(check.durationMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
      {report?.lint && <ToolLint lint={report.lint} />}
    </div>
  );
}

/** One list route of a server, page by page ("more" follows nextCursor). */
function usePages<T>(path: string) {
  const first = useApiGetPost<Page<T>>(path);
  const [more, setMore] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const [loadingMore, setLoadingMore] = useState(false);
  const next = cursor ?? (more.length === 0 ? first.data?.nextCursor : undefined);
  const loadMore = async () => {
    if (!next) return;
    setLoadingMore(true);
    try {
      const page = await api<Page<T>>(path, { method: 'POST', body: { cursor: next } });
      setMore((m) => [...m, ...page.items]);
      setCursor(page.nextCursor ?? '');
    } finally {
      setLoadingMore(false);
    }
  };
  return {
    items: first.data ? [...first.data.items, ...more] : undefined,
    error: first.error,
    hasMore: Boolean(next),
    loadingMore,
    loadMore,
  };
}

/** A list route is a POST (it talks to the server): asked once, when the list is opened. */
function useApiGetPost<T>(path: string) {
  const [state, setState] = useState<{ data?: T; error?: Error }>({});
  useEffect(() => {
    let current = true;
    setState({});
    api<T>(path, { method: 'POST', body: {} }).then(
      (data) => current && setState({ data }),
      (error: Error) => current && setState({ error }),
    );
    return () => {
      current = false;
    };
  }, [path]);
  return state;
}

function ToolList({ base, serverId }: { base: string; serverId: string }) {
  const tools = usePages<Tool>(`${base}/tools`);
  if (tools.error) return <ErrorMessage error={tools.error} action="Could not list the tools" />;
  if (!tools.items) return <Loading what="Loading the tools" />;
  if (tools.items.length === 0) return <p>The server lists no tools.</p>;
  return (
    <>
      <ul class="primitives tools" aria-label="Tools">
        {tools.items.map((tool) => (
          <li key={tool.name} class="tool">
            <details>
              <summary>
                <code>{tool.name}</code>
                {tool.title ? ` ${tool.title}` : ''}
                {tool.description && <span class="muted"> — {tool.description}</span>}
              </summary>
              <ToolCall base={base} tool={tool} idPrefix={`call-${serverId}-${tool.name}`} />
            </details>
          </li>
        ))}
      </ul>
      <MoreButton pages={tools} />
    </>
  );
}

function MoreButton({ pages }: { pages: { hasMore: boolean; loadingMore: boolean; loadMore: () => Promise<void> } }) {
  if (!pages.hasMore) return null;
  return (
    <button type="button" disabled={pages.loadingMore} onClick={() => void pages.loadMore()}>
      {pages.loadingMore ? 'Loading…' : 'More'}
    </button>
  );
}

function ToolCall({ base, tool, idPrefix }: { base: string; tool: Tool; idPrefix: string }) {
  const [result, setResult] = useState<CallToolResult>();
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const call = async (parameters: Record<string, unknown>) => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(
        await api<CallToolResult>(`${base}/tools/call`, {
          method: 'POST',
          body: { toolName: tool.name, parameters },
        }),
      );
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="tool-call-panel">
      <SchemaForm
        schema={tool.inputSchema}
        idPrefix={idPrefix.replace(/[^A-Za-z0-9_-]/g, '_')}
        submitLabel={`Call ${tool.name}`}
        busy={busy}
        onSubmit={(args) => void call(args)}
      />
      {error && <ErrorMessage error={error} action={`Could not call ${tool.name}`} />}
      {result && (
        <div class={`tool-result${result.isError ? ' failed' : ''}`} role="status">
          <h3>{result.isError ? 'The tool answered with an error' : 'Result'}</h3>
          <JsonView value={result} label={`result of ${tool.name}`} />
        </div>
      )}
    </div>
  );
}

function PromptList({ base }: { base: string }) {
  const prompts = usePages<Prompt>(`${base}/prompts`);
  if (prompts.error) return <ErrorMessage error={prompts.error} action="Could not list the prompts" />;
  if (!prompts.items) return <Loading what="Loading the prompts" />;
  if (prompts.items.length === 0) return <p>The server lists no prompts.</p>;
  return (
    <>
      <ul class="primitives prompts" aria-label="Prompts">
        {prompts.items.map((prompt) => (
          <li key={prompt.name}>
            <code>{prompt.name}</code>
            {prompt.description && <span class="muted"> — {prompt.description}</span>}
            {prompt.arguments.length > 0 && (
              <ul>
                {prompt.arguments.map((a) => (
                  <li key={a.name}>
                    <code>{a.name}</code>
                    {a.required ? ' (required)' : ''}
                    {a.description ? `: ${a.description}` : ''}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      <MoreButton pages={prompts} />
    </>
  );
}

function ResourceList({ base }: { base: string }) {
  const resources = usePages<Resource>(`${base}/resources`);
  if (resources.error) return <ErrorMessage error={resources.error} action="Could not list the resources" />;
  if (!resources.items) return <Loading what="Loading the resources" />;
  if (resources.items.length === 0) return <p>The server lists no resources.</p>;
  return (
    <>
      <div class="table-wrap">
        <table class="resources">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">URI</th>
              <th scope="col">Type</th>
            </tr>
          </thead>
          <tbody>
            {resources.items.map((r) => (
              <tr key={r.uri}>
                <th scope="row">{r.title ?? r.name}</th>
                <td>
                  <code>{r.uri}</code>
                </td>
                <td>{r.mimeType}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <MoreButton pages={resources} />
    </>
  );
}
