// Chat sessions and chatboxes: records the hosted app writes; Runway reads them (the operator CLI can create them).

/** The statuses a chat session has; a filter on any other value matches none. */
export const chatSessionStatuses = ['active', 'archived'] as const;
export type ChatSessionStatus = (typeof chatSessionStatuses)[number];

export interface ChatSession {
  id: string;
  projectId: string;
  userId: string;
  title: string | null;
  status: ChatSessionStatus;
  /** `private`: seen by its own user only */
  visibility: 'private' | 'project';
  isPinned: boolean;
  isUnread: boolean;
  lastActivityAt: Date;
  createdAt: Date;
}

export type ChatboxMode = 'project_members' | 'invited_only' | 'anyone_with_link';

/** A published chatbox: a model with some of the project's servers, behind a link. */
export interface Chatbox {
  id: string;
  projectId: string;
  name: string;
  description: string;
  hostId: string | null;
  hostName: string | null;
  hostStyle: string;
  mode: ChatboxMode;
  modelId: string;
  systemPrompt: string;
  temperature: number;
  requireToolApproval: boolean;
  serverIds: string[];
  /** its servers that still exist in the project, in the chatbox's order */
  servers: { id: string; name: string; url: string | null; useOAuth: boolean }[];
  /** the path of its link below the public origin (`/chatbox/<id>`) */
  linkPath: string;
  createdAt: Date;
  updatedAt: Date;
}
