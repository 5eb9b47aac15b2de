import type { Label, LabelStore } from './ports';
import { randomColor } from './label.rules';

export interface LabelsDeps {
  labels: LabelStore;
}

/** The labels of a workspace (spec 2.4): create one, list them. */
export class LabelsUseCases {
  constructor(private readonly deps: LabelsDeps) {}

  async create(workspaceId: string, input: { name: string }): Promise<Label> {
    return this.deps.labels.create(workspaceId, { name: input.name, color: randomColor() });
  }

  async list(workspaceId: string, page: { skip: number; take: number }) {
    const { items, total } = await this.deps.labels.list(workspaceId, page);
    return { items, total, skip: page.skip, take: page.take };
  }
}
