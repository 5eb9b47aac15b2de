export interface Label {
  id: string;
  name: string;
  color: string;
}

/** The labels of a workspace (data/label.repository.ts). */
export interface LabelStore {
  create(workspaceId: string, fields: { name: string; color: string }): Promise<Label>;
  /** Oldest first. */
  list(workspaceId: string, page: { skip: number; take: number }): Promise<{ items: Label[]; total: number }>;
  /** The labels of the given ids that exist in the workspace (others are silently absent). */
  findMany(workspaceId: string, ids: string[]): Promise<Label[]>;
}
