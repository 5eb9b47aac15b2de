import { mediaServiceDefinition } from '@social/contracts';

export const mediaDefinition = mediaServiceDefinition();

/** Who may call what (docs/internal-auth.md): each RPC names the services whose work needs it. */
export const MEDIA_RPC_CALLERS = {
  BatchGetMedia: ['posts', 'publisher'],
  ReadMediaFile: ['publisher'],
} as const;
