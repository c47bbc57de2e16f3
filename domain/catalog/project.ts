export type ProjectVisibility = 'organization' | 'private';

/** A project as a key sees it, with the key owner's role in it (the project role, else the organization role). */
export interface Project {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  icon: string;
  visibility: ProjectVisibility;
  isDefault: boolean;
  role: string;
  createdAt: Date;
  updatedAt: Date;
}
