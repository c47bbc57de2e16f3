import type { HostConfig } from './schemas/hosts.js';

/**
 * The built-in host templates: one complete host config per MCP client application, describing that client as it
 * presents itself to an MCP server (clientInfo, protocol revisions, declared capabilities), the vendor model it
 * defaults to, whether it asks before running a tool, and how long it waits for a request.
 *
 * Values marked "approximation" are our best reading of a client that does not document them (or changes them from
 * release to release); clientInfo versions are representative, since every client bumps them constantly. No template
 * names servers: `serverIds` is always empty and a host created from a template starts without servers.
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

export interface HostTemplate {
  title: string;
  description: string;
  config: HostConfig;
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
      serverIds: [],
      // The inspector's MCP client names itself `mcpjam-inspector`; the version follows its npm release.
      clientInfo: { name: 'mcpjam-inspector', version: '1.0.0', title: 'MCPJam Inspector', websiteUrl: 'https://www.mcpjam.com' },
      protocolVersions: [...ALL_REVISIONS],
      clientCapabilities: {
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {}, url: {} },
        extensions: { ...MCP_APPS_EXTENSION },
      },
      connectionDefaults: { headers: {}, requestTimeoutMs: SDK_DEFAULT_TIMEOUT_MS },
      transports: ['stdio', 'streamable-http', 'sse'],
      ui: { mcpApps: true, openAiAppsSdk: true, displayModes: ['inline', 'fullscreen', 'pip'] },
    },
  },

  claude: {
    title: 'Claude',
    description:
      'Claude (claude.ai and Claude Desktop) with custom connectors. Sends clientInfo `claude-ai`, offers the newest ' +
      'protocol revision, declares no roots, sampling or elicitation, renders MCP Apps, and asks before running a tool.',
    config: {
      hostStyle: 'claude',
      modelId: 'anthropic/claude-sonnet-4-5',
      systemPrompt:
        'You are Claude, an AI assistant made by Anthropic. You can use tools from connected MCP servers. Use a tool ' +
        'when it helps answer the request, explain what you are doing, and never invent tool results.',
      // Anthropic's API default.
      temperature: 1,
      // Claude asks "Allow once / Always allow" before a connector tool runs.
      requireToolApproval: true,
      serverIds: [],
      // Observed from claude.ai connectors and Claude Desktop: `claude-ai` version 0.1.0, protocol 2025-11-25.
      clientInfo: { name: 'claude-ai', version: '0.1.0' },
      protocolVersions: [...ALL_REVISIONS],
      // Probes find no roots, sampling or elicitation support. MCP Apps support is declared as Claude renders them
      // (approximation: the exact extension payload Claude sends is not documented).
      clientCapabilities: { extensions: { ...MCP_APPS_EXTENSION } },
      // Remote connector requests carry the `Claude-User` user agent.
      connectionDefaults: { headers: { 'User-Agent': 'Claude-User' }, requestTimeoutMs: SDK_DEFAULT_TIMEOUT_MS },
      // Desktop runs local stdio servers; connectors are remote HTTP (SSE still accepted).
      transports: ['stdio', 'streamable-http', 'sse'],
      ui: { mcpApps: true, openAiAppsSdk: false },
    },
  },

  'claude-code': {
    title: 'Claude Code',
    description:
      "Anthropic's agentic coding CLI. Sends clientInfo `claude-code`, exposes the working directory as a root, " +
      'supports form elicitation, asks for permission before a tool runs, and waits a long time for tools.',
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
      serverIds: [],
      // Version is representative (approximation): Claude Code reports its CLI version, 2.x at the time of writing.
      clientInfo: { name: 'claude-code', version: '2.1.0' },
      protocolVersions: [...ALL_REVISIONS],
      // Roots without listChanged; elicitation in form mode (approximation: support arrived in 2.x).
      clientCapabilities: { roots: {}, elicitation: {} },
      // Claude Code's own tool timeout (MCP_TOOL_TIMEOUT) defaults to far longer; capped at our maximum.
      connectionDefaults: { headers: {}, requestTimeoutMs: 600_000 },
      transports: ['stdio', 'streamable-http', 'sse'],
      ui: { mcpApps: false, openAiAppsSdk: false },
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
      serverIds: [],
      clientInfo: { name: 'openai-mcp', version: '1.0.0' },
      // 2025-06-18 and 2025-03-26 are observed; 2025-11-25 is an approximation for current releases.
      protocolVersions: ['2025-11-25', '2025-06-18', '2025-03-26'],
      // Approximation: ChatGPT declares no client capabilities beyond MCP Apps support.
      clientCapabilities: { extensions: { ...MCP_APPS_EXTENSION } },
      connectionDefaults: { headers: { 'User-Agent': 'openai-mcp/1.0.0' }, requestTimeoutMs: SDK_DEFAULT_TIMEOUT_MS },
      transports: ['streamable-http', 'sse'],
      ui: { mcpApps: true, openAiAppsSdk: true, displayModes: ['inline', 'fullscreen', 'pip'] },
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
      serverIds: [],
      // The name is as captured from Le Chat; the version is an approximation.
      clientInfo: { name: 'Mistral', version: '1.0.0', title: 'Mistral AI: Le Chat' },
      protocolVersions: [...UP_TO_2025_06_18],
      clientCapabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
      connectionDefaults: { headers: {}, requestTimeoutMs: SDK_DEFAULT_TIMEOUT_MS },
      transports: ['streamable-http', 'sse'],
      ui: { mcpApps: false, openAiAppsSdk: false },
    },
  },

  cursor: {
    title: 'Cursor',
    description:
      'The Cursor editor agent. Sends clientInfo `cursor-vscode` 1.0.0, exposes the workspace as roots, supports ' +
      'elicitation, asks before running MCP tools (unless auto-run is on), and passes a limited number of tools to ' +
      'the model.',
    config: {
      hostStyle: 'cursor',
      // Cursor's own models (Composer) are not served by hosted providers; Claude Sonnet is its most used pick.
      modelId: 'anthropic/claude-sonnet-4-5',
      systemPrompt:
        "You are an AI coding assistant operating in Cursor. You are pair programming with the user on their " +
        'codebase. Use the available tools to gather context and make changes, and keep answers short and precise.',
      // Approximation: Cursor does not publish its sampling settings; coding agents run cool.
      temperature: 0.2,
      requireToolApproval: true,
      serverIds: [],
      clientInfo: { name: 'cursor-vscode', version: '1.0.0', title: 'Cursor' },
      protocolVersions: [...UP_TO_2025_06_18],
      clientCapabilities: { roots: {}, elicitation: {} },
      connectionDefaults: { headers: {}, requestTimeoutMs: SDK_DEFAULT_TIMEOUT_MS },
      transports: ['stdio', 'streamable-http', 'sse'],
      ui: { mcpApps: false, openAiAppsSdk: false },
      // Cursor documents a limit of 40 tools sent to the agent (approximation: later releases relax it).
      limits: { maxTools: 40 },
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
        'achieve the user\'s goals. Use tools to inspect and change the code, and keep your final answer brief.',
      temperature: 1,
      // Codex's approval policy gates shell commands and sandbox escapes; MCP tool calls run without a prompt
      // (approximation: newer releases can ask for tools annotated destructive).
      requireToolApproval: false,
      serverIds: [],
      // Version is representative (approximation): Codex reports its release version, 0.x at the time of writing.
      clientInfo: { name: 'codex-mcp-client', version: '0.98.0', title: 'Codex' },
      protocolVersions: [...UP_TO_2025_06_18],
      clientCapabilities: { elicitation: {} },
      // Codex's tool_timeout_sec default.
      connectionDefaults: { headers: {}, requestTimeoutMs: 60_000 },
      transports: ['stdio', 'streamable-http'],
      ui: { mcpApps: false, openAiAppsSdk: false },
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
      serverIds: [],
      // Observed name (shared by several Copilot hosts) and protocol 2025-11-25; the version is representative.
      clientInfo: { name: 'github-copilot-developer', version: '1.0.0', title: 'GitHub Copilot' },
      protocolVersions: [...ALL_REVISIONS],
      // Probes find no roots; the CLI declares nothing else either (approximation).
      clientCapabilities: {},
      connectionDefaults: { headers: {}, requestTimeoutMs: SDK_DEFAULT_TIMEOUT_MS },
      transports: ['stdio', 'streamable-http', 'sse'],
      ui: { mcpApps: false, openAiAppsSdk: false },
      // Copilot sends at most 128 tools per request.
      limits: { maxTools: 128 },
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
        'tools to gather context and complete the task, and follow the user\'s requirements carefully.',
      temperature: 0.1,
      requireToolApproval: true,
      serverIds: [],
      // The name is the product name; the version follows the editor release (representative).
      clientInfo: { name: 'Visual Studio Code', version: '1.108.0' },
      protocolVersions: [...ALL_REVISIONS],
      clientCapabilities: {
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {}, url: {} },
        tasks: { requests: { tools: { call: {} } } },
        extensions: { ...MCP_APPS_EXTENSION },
      },
      connectionDefaults: { headers: {}, requestTimeoutMs: SDK_DEFAULT_TIMEOUT_MS },
      transports: ['stdio', 'streamable-http', 'sse'],
      ui: { mcpApps: true, openAiAppsSdk: false },
      // VS Code sends at most 128 tools per request.
      limits: { maxTools: 128 },
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
      serverIds: [],
      // Approximation: the Gateway's clientInfo toward MCP targets is not documented.
      clientInfo: { name: 'bedrock-agentcore-gateway', version: '1.0.0', title: 'Amazon Bedrock AgentCore Gateway' },
      // The revisions AgentCore Gateway documents.
      protocolVersions: ['2025-06-18', '2025-03-26'],
      clientCapabilities: {},
      // Approximation: gateway calls are short-lived.
      connectionDefaults: { headers: {}, requestTimeoutMs: 30_000 },
      transports: ['streamable-http'],
      ui: { mcpApps: false, openAiAppsSdk: false },
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
      serverIds: [],
      // Name as captured; the version is the node's (approximation).
      clientInfo: { name: '@n8n/n8n-nodes-langchain.mcpClientTool', version: '1', title: 'n8n MCP Client' },
      protocolVersions: [...UP_TO_2025_06_18],
      clientCapabilities: {},
      // The MCP Client Tool node's timeout option default.
      connectionDefaults: { headers: {}, requestTimeoutMs: 60_000 },
      transports: ['streamable-http', 'sse'],
      ui: { mcpApps: false, openAiAppsSdk: false },
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
      serverIds: [],
      // Approximation: Perplexity's clientInfo is not documented.
      clientInfo: { name: 'perplexity', version: '1.0.0', title: 'Perplexity' },
      protocolVersions: [...UP_TO_2025_06_18],
      clientCapabilities: {},
      connectionDefaults: { headers: {}, requestTimeoutMs: SDK_DEFAULT_TIMEOUT_MS },
      transports: ['stdio', 'streamable-http', 'sse'],
      ui: { mcpApps: false, openAiAppsSdk: false },
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

/** A deep copy of a template's config, safe to change and store. */
export function templateConfig(id: HostTemplateId): HostConfig {
  if (!isHostTemplateId(id)) throw new Error(`unknown host template: ${String(id)}`);
  return structuredClone(hostTemplates[id].config);
}
