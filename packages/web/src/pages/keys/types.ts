/** Keys as the API answers them (packages/server/src/modules/keys/schemas.ts). */
export interface KeyRecord {
  id: string;
  project_id: string;
  label: string | null;
  /** the first 12 characters of the secret */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

/** The answer of a create: the only time the secret is shown. */
export interface CreatedKey extends KeyRecord {
  secret: string;
}
