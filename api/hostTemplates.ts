/**
 * The built-in host templates: one host config v2 per MCP client application, in the shape the real product's
 * templates produce (its Claude template: test/fixtures/reference/host-config-v2-claude.json). Each describes that
 * client as it presents itself to an MCP server (`mcpProfile.initialize`: clientInfo and protocol revisions; declared
 * `clientCapabilities`), the vendor model it defaults to, whether it asks before running a tool, how long it waits
 * for a request, and the context it gives MCP Apps it renders (`hostContext`, MCP Apps' HostContext).
 *
 * Values marked "approximation" are our best reading of a client that does not document them (or changes them from
 * release to release); clientInfo versions are representative, since every client bumps them constantly. No template
 * names servers or headers: a host created from a template starts without servers, and header values are secrets a
 * user adds. The time zone is UTC (the real product seeds the browser's; a server has none to offer).
 */

export const hostTemplateIds = [
  'mcpjam',
  'claude',
  'claude-code',
  'chatgpt',
  'mistral',
  'cursor',
  'codex',
  'copilot',
  'vscode',
  'agentcore',
  'n8n',
  'perplexity',
] as const;

export type HostTemplateId = (typeof hostTemplateIds)[number];

export type HostTheme = 'light' | 'dark';

type DisplayMode = 'inline' | 'fullscreen' | 'pip';

/** MCP Apps' HostContext, as far as the templates fill it in. */
export interface HostContext {
  theme: HostTheme;
  displayMode: DisplayMode;
  availableDisplayModes: DisplayMode[];
  containerDimensions: { width?: number; maxWidth?: number; maxHeight?: number };
  locale: string;
  timeZone: string;
  userAgent: string;
  platform: 'web' | 'desktop' | 'mobile';
  deviceCapabilities: { touch: boolean; hover: boolean };
  safeAreaInsets: { top: number; right: number; bottom: number; left: number };
  styles: { variables: Record<string, string> };
}

/** The host config v2 a template produces (a config given by a caller may hold anything; see schemas/hosts.ts). */
// A type, not an interface: it must fit the open config type (an object with any keys) where a config is taken.
export type HostTemplateConfig = {
  hostStyle: string;
  modelId: string;
  systemPrompt: string;
  temperature: number;
  requireToolApproval: boolean;
  /** tools an MCP App marks visible to the app only are not shown to the model */
  respectToolVisibility: boolean;
  /** the model searches the tools instead of getting them all up front */
  progressiveToolDiscovery: boolean;
  serverIds: string[];
  optionalServerIds: string[];
  builtInToolIds: string[];
  connectionDefaults: { headers: Record<string, string>; requestTimeout: number };
  clientCapabilities: {
    roots?: { listChanged?: boolean };
    sampling?: Record<string, unknown>;
    elicitation?: { form?: Record<string, unknown>; url?: Record<string, unknown> };
    tasks?: Record<string, unknown>;
    extensions?: Record<string, Record<string, unknown>>;
  };
  hostContext: HostContext;
  mcpProfile: {
    profileVersion: 1;
    initialize: { clientInfo: { name: string; version: string; title?: string }; supportedProtocolVersions: string[] };
    apps?: { uiInitialize: { hostInfo: { name: string; version: string } } };
  };
};

export interface HostTemplate {
  title: string;
  description: string;
  config: HostTemplateConfig;
}

export const isHostTemplateId = (value: unknown): value is HostTemplateId =>
  typeof value === 'string' && (hostTemplateIds as readonly string[]).includes(value);

/** Every revision the MCP TypeScript and Python SDKs negotiate, newest first. */
const ALL_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
/** Clients whose newest revision is 2025-06-18 but that still negotiate down. */
const UP_TO_2025_06_18 = ['2025-06-18', '2025-03-26', '2024-11-05'];

/** MCP Apps (SEP-1865): the client renders `ui://` resources served as text/html;profile=mcp-app. */
const MCP_APPS_EXTENSION = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };

/** The MCP TypeScript SDK's DEFAULT_REQUEST_TIMEOUT_MSEC, which most clients built on it keep. */
const SDK_DEFAULT_TIMEOUT_MS = 60_000;

const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/147.0.0.0 Safari/537.36';
/** An Electron editor's user agent: `<product>/<version>` between the engine tokens. */
const editorUserAgent = (product: string) =>
  `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) ${product} Chrome/138.0.7204.251 Electron/37.7.0 Safari/537.36`;

const SYSTEM_FONTS = {
  '--font-sans': 'system-ui, -apple-system, sans-serif',
  '--font-mono': 'ui-monospace, monospace',
};

/**
 * The host context of a client: a desktop screen with a mouse, no insets, US English, UTC, inline display, unless
 * the client says otherwise. The theme is stamped in when a host is created (`templateConfig`).
 */
const context = (given: Pick<HostContext, 'userAgent' | 'platform'> & Partial<HostContext>): HostContext => ({
  theme: 'light',
  displayMode: 'inline',
  availableDisplayModes: ['inline'],
  containerDimensions: { maxHeight: 5000 },
  locale: 'en-US',
  timeZone: 'UTC',
  deviceCapabilities: { touch: false, hover: true },
  safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 },
  styles: { variables: { ...SYSTEM_FONTS } },
  ...given,
});

/** The fields every template shares the value of. */
const common = {
  respectToolVisibility: true,
  progressiveToolDiscovery: false,
  serverIds: [],
  optionalServerIds: [],
  builtInToolIds: [],
} satisfies Partial<HostTemplateConfig>;

const templates = {
  mcpjam: {
    title: 'MCPJam',
    description:
      'MCPJam Inspector: the development client for MCP servers, ChatGPT apps and MCP apps. Declares every client ' +
      'capability (roots, sampling, form and URL elicitation, MCP Apps) and runs tools without asking, so a server ' +
      'can exercise all of its features.',
    config: {
      hostStyle: 'mcpjam',
      // A neutral, inexpensive default; the inspector lets the user pick any model.
      modelId: 'openai/gpt-5-mini',
      systemPrompt:
        'You are a helpful assistant connected to MCP servers under development. Use the available tools whenever ' +
        'they help answer the request, and report tool errors exactly as returned.',
      temperature: 0.7,
      requireToolApproval: false,
      ...common,
      connectionDefaults: { headers: {}, requestTimeout: SDK_DEFAULT_TIMEOUT_MS },
      clientCapabilities: {
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {}, url: {} },
        extensions: { ...MCP_APPS_EXTENSION },
      },
      hostContext: context({
        userAgent: BROWSER_USER_AGENT,
        platform: 'web',
        availableDisplayModes: ['inline', 'fullscreen', 'pip'],
        containerDimensions: { width: 720, maxHeight: 5000 },
      }),
      mcpProfile: {
        profileVersion: 1,
        // The inspector's MCP client names itself `mcpjam-inspector`; the version follows its npm release.
        initialize: {
          clientInfo: { name: 'mcpjam-inspector', version: '1.0.0', title: 'MCPJam Inspector' },
          supportedProtocolVersions: [...ALL_REVISIONS],
        },
        apps: { uiInitialize: { hostInfo: { name: 'MCPJam', version: '1.0.0' } } },
      },
    },
  },

  claude: {
    title: 'Claude',
    description:
      'Claude (claude.ai and Claude Desktop) with custom connectors. Sends clientInfo `claude-ai`, offers the newest ' +
      'protocol revision, declares no roots, sampling or elicitation, and renders MCP Apps.',
    config: {
      hostStyle: 'claude',
      // The real product's Claude template: Haiku 4.5, temperature 1 (Anthropic's API default), a 10 s request
      // timeout, no tool approval (an eval has nobody to ask).
      modelId: 'anthropic/claude-haiku-4.5',
      systemPrompt:
        'You are Claude, an AI assistant made by Anthropic. You can use tools from connected MCP servers. Use a tool ' +
        'when it helps answer the request, explain what you are doing, and never invent tool results.',
      temperature: 1,
      requireToolApproval: false,
      ...common,
      connectionDefaults: { headers: {}, requestTimeout: 10_000 },
      // Probes find no roots, sampling or elicitation support; MCP Apps are rendered.
      clientCapabilities: { extensions: { ...MCP_APPS_EXTENSION } },
      hostContext: context({
        userAgent: BROWSER_USER_AGENT,
        platform: 'web',
        availableDisplayModes: ['inline', 'fullscreen'],
        containerDimensions: { width: 720, maxHeight: 5000 },
        styles: {
          variables: { '--font-sans': 'Anthropic Sans, sans-serif', '--font-mono': 'ui-monospace, monospace' },
        },
      }),
      mcpProfile: {
        profileVersion: 1,
        // Observed from claude.ai connectors and Claude Desktop: `claude-ai` version 0.1.0, protocol 2025-11-25.
        initialize: {
          clientInfo: { name: 'claude-ai', version: '0.1.0' },
          supportedProtocolVersions: [...ALL_REVISIONS],
        },
        apps: { uiInitialize: { hostInfo: { name: 'Claude', version: '1.0.0' } } },
      },
    },
  },

  'claude-code': {
    title: 'Claude Code',
    description:
      "Anthropic's agentic coding CLI. Sends clientInfo `claude-code`, exposes the working directory as a root, " +
      'supports form elicitation, asks for permission before a tool runs, searches its tools rather than loading ' +
      'them all, and waits a long time for tools.',
    config: {
      hostStyle: 'claude-code',
      modelId: 'anthropic/claude-sonnet-4-5',
      systemPrompt:
        'You are Claude Code, an interactive coding agent. Help the user with software engineering tasks in their ' +
        'repository. Be concise, prefer the available tools over guessing, and do not take destructive actions ' +
        'without confirmation.',
      temperature: 1,
      // Permission prompts unless the tool is allow-listed.
      requireToolApproval: true,
      ...common,
      // Tool search: MCP tools are discovered on demand once they would fill much of the context.
      progressiveToolDiscovery: true,
      // Claude Code's own tool timeout (MCP_TOOL_TIMEOUT) defaults to far longer; capped at our maximum.
      connectionDefaults: { headers: {}, requestTimeout: 600_000 },
      // Roots without listChanged; elicitation in form mode (approximation: support arrived in 2.x).
      clientCapabilities: { roots: {}, elicitation: {} },
      // A terminal renders no MCP Apps; the context says so.
      hostContext: context({ userAgent: 'claude-code/2.1.0', platform: 'desktop' }),
      mcpProfile: {
        profileVersion: 1,
        // Version is representative (approximation): Claude Code reports its CLI version, 2.x at the time of writing.
        initialize: {
          clientInfo: { name: 'claude-code', version: '2.1.0' },
          supportedProtocolVersions: [...ALL_REVISIONS],
        },
      },
    },
  },

  chatgpt: {
    title: 'ChatGPT',
    description:
      'ChatGPT apps and connectors (developer mode). Sends clientInfo `openai-mcp` 1.0.0 over remote HTTP only, ' +
      'declares no roots, sampling or elicitation, renders Apps SDK widgets and MCP Apps, and asks to confirm write ' +
      'actions.',
    config: {
      hostStyle: 'chatgpt',
      modelId: 'openai/gpt-5',
      systemPrompt:
        'You are ChatGPT, a large language model trained by OpenAI. Use the connected apps when they can answer the ' +
        "request, prefer showing an app's UI over repeating its data, and ask before taking actions with side effects.",
      // GPT-5 is a reasoning model and accepts only the default temperature.
      temperature: 1,
      // ChatGPT confirms tools that are not annotated readOnlyHint before running them.
      requireToolApproval: true,
      ...common,
      connectionDefaults: { headers: {}, requestTimeout: SDK_DEFAULT_TIMEOUT_MS },
      // Approximation: ChatGPT declares no client capabilities beyond MCP Apps support.
      clientCapabilities: { extensions: { ...MCP_APPS_EXTENSION } },
      hostContext: context({
        userAgent: BROWSER_USER_AGENT,
        platform: 'web',
        availableDisplayModes: ['inline', 'fullscreen', 'pip'],
        containerDimensions: { width: 768, maxHeight: 5000 },
      }),
      mcpProfile: {
        profileVersion: 1,
        // 2025-06-18 and 2025-03-26 are observed; 2025-11-25 is an approximation for current releases.
        initialize: {
          clientInfo: { name: 'openai-mcp', version: '1.0.0' },
          supportedProtocolVersions: ['2025-11-25', '2025-06-18', '2025-03-26'],
        },
        apps: { uiInitialize: { hostInfo: { name: 'ChatGPT', version: '1.0.0' } } },
      },
    },
  },

  mistral: {
    title: 'Mistral Le Chat',
    description:
      "Mistral AI's Le Chat with custom MCP connectors. Sends clientInfo `Mistral`, connects to remote servers only, " +
      'declares roots, sampling and elicitation, and asks before running a tool.',
    config: {
      hostStyle: 'mistral',
      modelId: 'mistral/mistral-large-latest',
      systemPrompt:
        'You are Le Chat, an AI assistant created by Mistral AI. Use the connectors available to you when they help ' +
        'answer the request, cite what the tools returned, and ask for confirmation before actions with side effects.',
      // Mistral recommends a low temperature for its large models.
      temperature: 0.3,
      requireToolApproval: true,
      ...common,
      connectionDefaults: { headers: {}, requestTimeout: SDK_DEFAULT_TIMEOUT_MS },
      clientCapabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
      hostContext: context({
        userAgent: BROWSER_USER_AGENT,
        platform: 'web',
        containerDimensions: { width: 768, maxHeight: 5000 },
      }),
      mcpProfile: {
        profileVersion: 1,
        // The name is as captured from Le Chat; the version is an approximation.
        initialize: {
          clientInfo: { name: 'Mistral', version: '1.0.0', title: 'Mistral AI: Le Chat' },
          supportedProtocolVersions: [...UP_TO_2025_06_18],
        },
      },
    },
  },

  cursor: {
    title: 'Cursor',
    description:
      'The Cursor editor agent. Sends clientInfo `cursor-vscode` 1.0.0, exposes the workspace as roots, supports ' +
      'elicitation, and asks before running MCP tools (unless auto-run is on).',
    config: {
      hostStyle: 'cursor',
      // Cursor's own models (Composer) are not served by hosted providers; Claude Sonnet is its most used pick.
      modelId: 'anthropic/claude-sonnet-4-5',
      systemPrompt:
        'You are an AI coding assistant operating in Cursor. You are pair programming with the user on their ' +
        'codebase. Use the available tools to gather context and make changes, and keep answers short and precise.',
      // Approximation: Cursor does not publish its sampling settings; coding agents run cool.
      temperature: 0.2,
      requireToolApproval: true,
      ...common,
      connectionDefaults: { headers: {}, requestTimeout: SDK_DEFAULT_TIMEOUT_MS },
      clientCapabilities: { roots: {}, elicitation: {} },
      // The agent panel of an Electron editor (approximation: the version follows the release).
      hostContext: context({
        userAgent: editorUserAgent('Cursor/2.3.0'),
        platform: 'desktop',
        containerDimensions: { width: 480, maxHeight: 2000 },
      }),
      mcpProfile: {
        profileVersion: 1,
        initialize: {
          clientInfo: { name: 'cursor-vscode', version: '1.0.0', title: 'Cursor' },
          supportedProtocolVersions: [...UP_TO_2025_06_18],
        },
      },
    },
  },

  codex: {
    title: 'OpenAI Codex',
    description:
      "OpenAI's coding agent (CLI and IDE extension). Sends clientInfo `codex-mcp-client` titled Codex, offers " +
      'protocol 2025-06-18, declares elicitation only, and gives each tool call 60 seconds.',
    config: {
      hostStyle: 'codex',
      modelId: 'openai/gpt-5-codex',
      systemPrompt:
        'You are Codex, a coding agent based on GPT-5. You and the user share the same workspace and collaborate to ' +
        "achieve the user's goals. Use tools to inspect and change the code, and keep your final answer brief.",
      temperature: 1,
      // Codex's approval policy gates shell commands and sandbox escapes; MCP tool calls run without a prompt
      // (approximation: newer releases can ask for tools annotated destructive).
      requireToolApproval: false,
      ...common,
      // Codex's tool_timeout_sec default.
      connectionDefaults: { headers: {}, requestTimeout: 60_000 },
      clientCapabilities: { elicitation: {} },
      // The CLI's user agent is `codex_cli_rs/<version>`.
      hostContext: context({ userAgent: 'codex_cli_rs/0.98.0', platform: 'desktop' }),
      mcpProfile: {
        profileVersion: 1,
        // Version is representative (approximation): Codex reports its release version, 0.x at the time of writing.
        initialize: {
          clientInfo: { name: 'codex-mcp-client', version: '0.98.0', title: 'Codex' },
          supportedProtocolVersions: [...UP_TO_2025_06_18],
        },
      },
    },
  },

  copilot: {
    title: 'GitHub Copilot',
    description:
      'GitHub Copilot CLI and coding agent. Sends clientInfo `github-copilot-developer`, offers the newest protocol ' +
      'revision but declares no client capabilities (no roots), and asks before running a tool.',
    config: {
      hostStyle: 'copilot',
      // Copilot's included base model.
      modelId: 'openai/gpt-4.1',
      systemPrompt:
        'You are GitHub Copilot, an AI programming assistant. Help the user with their code and their GitHub ' +
        'repositories, use the available tools to look things up and make changes, and keep answers short.',
      // Approximation: not published.
      temperature: 0.1,
      requireToolApproval: true,
      ...common,
      connectionDefaults: { headers: {}, requestTimeout: SDK_DEFAULT_TIMEOUT_MS },
      // Probes find no roots; the CLI declares nothing else either (approximation).
      clientCapabilities: {},
      // Approximation: the CLI's user agent.
      hostContext: context({ userAgent: 'copilot-cli/1.0.0', platform: 'desktop' }),
      mcpProfile: {
        profileVersion: 1,
        // Observed name (shared by several Copilot hosts) and protocol 2025-11-25; the version is representative.
        initialize: {
          clientInfo: { name: 'github-copilot-developer', version: '1.0.0', title: 'GitHub Copilot' },
          supportedProtocolVersions: [...ALL_REVISIONS],
        },
      },
    },
  },

  vscode: {
    title: 'VS Code',
    description:
      'Visual Studio Code agent mode (GitHub Copilot Chat). Sends clientInfo `Visual Studio Code` and declares the ' +
      'fullest capability set of any editor: roots with change notifications, sampling, form and URL elicitation, ' +
      'tasks and MCP Apps. Asks before running a tool unless it is auto-approved.',
    config: {
      hostStyle: 'vscode',
      // Approximation: VS Code's default agent model changes often (and defaults to "Auto").
      modelId: 'openai/gpt-5-mini',
      systemPrompt:
        'You are an expert AI programming assistant working with the user in the VS Code editor. Use the available ' +
        "tools to gather context and complete the task, and follow the user's requirements carefully.",
      temperature: 0.1,
      requireToolApproval: true,
      ...common,
      connectionDefaults: { headers: {}, requestTimeout: SDK_DEFAULT_TIMEOUT_MS },
      clientCapabilities: {
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {}, url: {} },
        tasks: { requests: { tools: { call: {} } } },
        extensions: { ...MCP_APPS_EXTENSION },
      },
      hostContext: context({
        userAgent: editorUserAgent('Code/1.108.0'),
        platform: 'desktop',
        availableDisplayModes: ['inline', 'fullscreen'],
        containerDimensions: { width: 480, maxHeight: 2000 },
      }),
      mcpProfile: {
        profileVersion: 1,
        // The name is the product name; the version follows the editor release (representative).
        initialize: {
          clientInfo: { name: 'Visual Studio Code', version: '1.108.0' },
          supportedProtocolVersions: [...ALL_REVISIONS],
        },
        apps: { uiInitialize: { hostInfo: { name: 'Visual Studio Code', version: '1.108.0' } } },
      },
    },
  },

  agentcore: {
    title: 'Amazon Bedrock AgentCore',
    description:
      'An agent on Amazon Bedrock AgentCore reaching MCP servers through AgentCore Gateway. Headless: streamable ' +
      'HTTP only, no client capabilities, no human to approve tools.',
    config: {
      hostStyle: 'agentcore',
      // AgentCore samples and Strands Agents default to Claude Sonnet on Bedrock.
      modelId: 'anthropic/claude-sonnet-4-5',
      systemPrompt:
        'You are an autonomous agent running on Amazon Bedrock AgentCore. Complete the task using the tools exposed ' +
        'through the gateway, do not ask the user follow-up questions, and return a concise final answer.',
      temperature: 0.3,
      requireToolApproval: false,
      ...common,
      // Approximation: gateway calls are short-lived.
      connectionDefaults: { headers: {}, requestTimeout: 30_000 },
      clientCapabilities: {},
      // Headless: nothing is displayed (approximation: the gateway's user agent).
      hostContext: context({
        userAgent: 'bedrock-agentcore-gateway/1.0.0',
        platform: 'web',
        deviceCapabilities: { touch: false, hover: false },
      }),
      mcpProfile: {
        profileVersion: 1,
        // Approximation: the Gateway's clientInfo toward MCP targets is not documented. The revisions are the ones
        // AgentCore Gateway documents.
        initialize: {
          clientInfo: {
            name: 'bedrock-agentcore-gateway',
            version: '1.0.0',
            title: 'Amazon Bedrock AgentCore Gateway',
          },
          supportedProtocolVersions: ['2025-06-18', '2025-03-26'],
        },
      },
    },
  },

  n8n: {
    title: 'n8n',
    description:
      "n8n's AI Agent with the MCP Client Tool node. Sends clientInfo `@n8n/n8n-nodes-langchain.mcpClientTool`, " +
      'connects over HTTP (streamable or SSE), declares no client capabilities and runs tools unattended inside a ' +
      'workflow.',
    config: {
      hostStyle: 'n8n',
      // The OpenAI Chat Model node's default.
      modelId: 'openai/gpt-4.1-mini',
      // The AI Agent node's default system message.
      systemPrompt: 'You are a helpful assistant',
      // The OpenAI Chat Model node's default sampling temperature.
      temperature: 0.7,
      requireToolApproval: false,
      ...common,
      // The MCP Client Tool node's timeout option default.
      connectionDefaults: { headers: {}, requestTimeout: 60_000 },
      clientCapabilities: {},
      // A workflow engine: nothing is displayed (approximation: its user agent).
      hostContext: context({ userAgent: 'n8n', platform: 'web', deviceCapabilities: { touch: false, hover: false } }),
      mcpProfile: {
        profileVersion: 1,
        // Name as captured; the version is the node's (approximation).
        initialize: {
          clientInfo: { name: '@n8n/n8n-nodes-langchain.mcpClientTool', version: '1', title: 'n8n MCP Client' },
          supportedProtocolVersions: [...UP_TO_2025_06_18],
        },
      },
    },
  },

  perplexity: {
    title: 'Perplexity',
    description:
      'Perplexity with MCP connectors (local servers through the Mac app, remote connectors). An answer engine: ' +
      'searches first, cites sources, low temperature, no client capabilities.',
    config: {
      hostStyle: 'perplexity',
      modelId: 'perplexity/sonar-pro',
      systemPrompt:
        'You are Perplexity, a helpful search assistant. Answer accurately and concisely, cite your sources, and use ' +
        'the connected tools when they hold the information the user is asking about.',
      // The Sonar API's default temperature.
      temperature: 0.2,
      // Approximation: Perplexity asks before a connector tool runs.
      requireToolApproval: true,
      ...common,
      connectionDefaults: { headers: {}, requestTimeout: SDK_DEFAULT_TIMEOUT_MS },
      clientCapabilities: {},
      hostContext: context({
        userAgent: BROWSER_USER_AGENT,
        platform: 'web',
        containerDimensions: { width: 768, maxHeight: 5000 },
      }),
      mcpProfile: {
        profileVersion: 1,
        // Approximation: Perplexity's clientInfo is not documented.
        initialize: {
          clientInfo: { name: 'perplexity', version: '1.0.0', title: 'Perplexity' },
          supportedProtocolVersions: [...UP_TO_2025_06_18],
        },
      },
    },
  },
} satisfies Record<HostTemplateId, HostTemplate>;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The built-in templates, frozen: use `templateConfig` for a config to store or change. */
export const hostTemplates: Readonly<Record<HostTemplateId, HostTemplate>> = deepFreeze(templates);

/** A deep copy of a template's config, safe to change and store, with the given theme (default light). */
export function templateConfig(id: HostTemplateId, theme: HostTheme = 'light'): HostTemplateConfig {
  if (!isHostTemplateId(id)) throw new Error(`unknown host template: ${String(id)}`);
  const config = structuredClone(hostTemplates[id].config);
  config.hostContext.theme = theme;
  return config;
}
