/** The user behind a key, in the organization the key acts in (GET /me). */
export interface Account {
  id: string;
  email: string;
  name: string;
  imageUrl: string | null;
  plan: string | null;
  createdAt: Date;
  updatedAt: Date;
  organization: { id: string; name: string };
}
