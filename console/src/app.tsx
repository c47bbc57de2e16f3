import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, apiKey, rateLimitNotice, remember, signIn, signOut, signOutReason } from './api';
import { useApi } from './hooks';
import { chooseProject, chosenProject } from './project';
import { href, matchPath, navigate, useLocation } from './router';
import { paths } from './paths';
import { routes } from './routes';
import { useStore } from './store';
import type { Page, Project } from './types';

/** The shell: the sign-in form, or the header (project picker, navigation, sign out), the notice and the view. */
export function App() {
  const key = useStore(apiKey);
  return key ? <SignedIn /> : <SignInForm />;
}

function SignInForm() {
  const reason = useStore(signOutReason);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Runway console';
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const key = value.trim();
    if (!key.startsWith('sk_')) {
      setError('An API key starts with sk_ (create one with: npm run -s admin -- key create --help).');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // The key is checked before it is kept; the reply is the header's project list.
      const projects = await api<Page<Project>>('/projects', { key });
      signIn(key);
      remember('/projects', projects);
    } catch (e) {
      const status = e instanceof ApiError ? e.status : 0;
      setError(
        status === 401 || status === 403
          ? `The API did not accept this key: ${(e as Error).message}`
          : `Could not sign in: ${(e as Error).message}`,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <h1>Runway console</h1>
      <p>
        Sign in with an API key of your organization. It is kept in this tab only (session storage) and sent to this
        server's API.
      </p>
      {reason && !error ? (
        <p class="error" role="alert">
          {reason}
        </p>
      ) : null}
      <form onSubmit={submit} class="stack" aria-describedby={error ? 'sign-in-error' : undefined}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="apiKey"
          type="password"
          autocomplete="off"
          spellcheck={false}
          placeholder="sk_…"
          required
          value={value}
          onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error ? (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </main>
  );
}

function SignedIn() {
  const { path, query } = useLocation();
  const notice = useStore(rateLimitNotice);
  const chosen = useStore(chosenProject);
  const projects = useApi<Page<Project>>('/projects');
  const match = routes.map((r) => ({ route: r, params: matchPath(r.pattern, path) })).find((m) => m.params);
  const routeProject = match?.params?.projectId ?? query.get('project');
  const items = projects.data?.items ?? [];
  const projectId = routeProject ?? chosen ?? items[0]?.id ?? null;

  // The project the page shows becomes the tab's choice, so "Suites" and "Servers" stay in it.
  useEffect(() => {
    if (projectId && projectId !== chosenProject.get()) chooseProject(projectId);
  }, [projectId]);

  const View = match?.route.view;
  const suitesHref = href(paths.suites, {}, { project: projectId });
  const serversHref = projectId ? href(paths.servers, { projectId }) : undefined;
  const onServers = match?.route.pattern === paths.servers;
  return (
    <>
      <a class="skip" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={suitesHref}>
          Runway <span class="muted">console</span>
        </a>
        <nav aria-label="Main">
          <ul>
            <li>
              <a
                href={suitesHref}
                aria-current={!onServers && match?.route.pattern === paths.suites ? 'page' : undefined}
              >
                Suites
              </a>
            </li>
            {serversHref ? (
              <li>
                <a href={serversHref} aria-current={onServers ? 'page' : undefined}>
                  Servers
                </a>
              </li>
            ) : null}
          </ul>
        </nav>
        <div class="picker">
          <label for="project-picker">Project</label>
          <select
            id="project-picker"
            value={projectId ?? ''}
            disabled={items.length === 0}
            onChange={(e) => {
              const id = (e.currentTarget as HTMLSelectElement).value;
              chooseProject(id);
              navigate(href(paths.suites, {}, { project: id }));
            }}
          >
            {items.length === 0 ? <option value="">{projects.loading ? 'Loading…' : 'No project'}</option> : null}
            {items.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        <button type="button" class="secondary" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <div class={notice ? 'notice' : 'visually-hidden'} role="status" aria-live="polite">
        {notice}
      </div>
      <main id="main" tabIndex={-1}>
        {View && match?.params ? (
          <View key={path} params={match.params} query={query} />
        ) : (
          <section>
            <h1>Page not found</h1>
            <p>
              Nothing lives at <code>#{path}</code>. <a href={suitesHref}>Go to the suites</a>.
            </p>
          </section>
        )}
      </main>
    </>
  );
}

/** The skip link moves focus without touching the hash (the hash is the router's). */
function skipToMain(event: Event) {
  event.preventDefault();
  document.getElementById('main')?.focus();
}
