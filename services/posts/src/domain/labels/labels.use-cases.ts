import type { Label, LabelStore } from './ports';
import { randomColor } from './label.rules';

export async function createLabel(repo: LabelStore, workspaceId: string, input: { name: string }): Promise<Label> {
  return repo.create(workspaceId, { name: input.name, color: randomColor() });
}

export async function listLabels(repo: LabelStore, workspaceId: string, page: { skip: number; take: number }) {
  const { items, total } = await repo.list(workspaceId, page);
  return { items, total, skip: page.skip, take: page.take };
}
