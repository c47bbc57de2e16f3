import type { Account } from '../catalog/account.js';
import type { Chatbox, ChatSession, ChatSessionStatus } from '../catalog/chat.js';
import type { Project } from '../catalog/project.js';
import type { Principal } from '../principal.js';

/**
 * What the catalog's read stories (domain/useCases/catalog: the account, projects, chat sessions and chatboxes;
 * creating a tunnel) need from storage, declared here and implemented outside the domain (db/catalogStore.ts).
 */

/** Which chat sessions one page reads. */
export interface ChatSessionFilter {
  projectId?: string;
  status: ChatSessionStatus;
  limit: number;
  /** keyset position: sessions strictly after (lastActivityAt desc, id desc) */
  after?: { lastActivityAt: number; id: string };
  /** epoch-ms upper bound on lastActivityAt (exclusive) */
  before?: number;
}

export interface CatalogStore {
  /** The project the key may see, by id (`default`: the organization's default project); undefined otherwise. */
  visibleProject(principal: Principal, projectId: string): Promise<Project | undefined>;
  /** The projects the key may see, oldest first. */
  projects(principal: Principal): Promise<Project[]>;
  /** The user behind the key, in the organization the key acts in. */
  account(principal: Principal): Promise<Account>;
  /** Sessions in projects the key may see (a private one only for its own user), most recently active first. */
  chatSessions(principal: Principal, filter: ChatSessionFilter): Promise<ChatSession[]>;
  /** The project's chatboxes, oldest first. */
  chatboxes(projectId: string): Promise<Chatbox[]>;
  /** A chatbox of the project. */
  chatbox(projectId: string, chatboxId: string): Promise<Chatbox | undefined>;
}
