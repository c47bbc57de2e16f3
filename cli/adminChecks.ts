import type { Db } from '../db/connection.js';
import { findMembership, findOrganization, findProjectEntry, findUser, type ProjectEntry } from '../db/directory.js';

/*
 * What the operator CLI checks before it writes, so that a mistyped id is a sentence naming it (and the command
 * that lists the right ones) rather than a foreign-key violation, and nothing is half written.
 */

export async function requireOrganization(sql: Db, id: string): Promise<{ id: string; name: string }> {
  const found = await findOrganization(sql, id);
  if (!found) throw new Error(`no organization ${id} (see: npm run -s admin -- org list)`);
  return found;
}

export async function requireUser(sql: Db, id: string): Promise<{ id: string; email: string; name: string }> {
  const found = await findUser(sql, { id });
  if (!found) throw new Error(`no user ${id} (see: npm run -s admin -- user list)`);
  return found;
}

export async function requireProject(sql: Db, id: string): Promise<ProjectEntry> {
  const found = await findProjectEntry(sql, id);
  if (!found) throw new Error(`no project ${id} (see: npm run -s admin -- project list)`);
  return found;
}

/**
 * The user and their membership of the organization. A key or a chat session of a user outside the organization
 * could never act (the API refuses a key whose owner is not a member: "no longer bound to an organization").
 */
export async function requireMember(sql: Db, organizationId: string, userId: string): Promise<{ role: string }> {
  await requireOrganization(sql, organizationId);
  const user = await requireUser(sql, userId);
  const membership = await findMembership(sql, organizationId, userId);
  if (!membership) {
    throw new Error(
      `user ${userId} (${user.email}) is not a member of organization ${organizationId}; ` +
        `add them first: npm run -s admin -- member add --org ${organizationId} --user ${userId}`,
    );
  }
  return membership;
}

/** An email that is not taken yet (the unique index has the last word; this names who has it). */
export async function requireFreeEmail(sql: Db, email: string): Promise<void> {
  const taken = await findUser(sql, { email });
  if (taken)
    throw new Error(`a user with the email ${email} already exists: ${taken.id} (see: npm run -s admin -- user list)`);
}
