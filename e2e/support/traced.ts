import sharp from 'sharp';
import { eventually, type TestSystem } from '@social/testkit';
import { apiClient, viaGateway, type ApiCreds } from './api';

/** What the tracing tests (request ids in logs, OpenTelemetry spans) share. */
export interface TracedCreds extends ApiCreds {
  workspaceId: string;
  profileId: string;
}

/** Call options that send `requestId` as X-Request-Id, the id a test follows. */
export const traced = (requestId: string) => ({ headers: { 'X-Request-Id': requestId } });

/**
 * A workspace of its own per test: the publisher caches a profile's credentials, and a cached
 * profile would skip the gRPC hop to competitors. One profile instead of --sandbox-profiles: fewer
 * background backfills crowding what a test reads.
 */
export async function tracedWorkspace(system: TestSystem, name: string): Promise<TracedCreds> {
  const c = await system.admin(['workspace', 'create', '--name', name, '--json']);
  const profile = await system.admin([
    'profile',
    'connect',
    '--workspace',
    c.workspaceId,
    '--net',
    'generalNet',
    '--account',
    'gn-own-1',
    '--json',
  ]);
  return { ...c, profileId: profile.id };
}

/** Uploads a generated JPEG through the signed address and confirms it under `requestId`; resolves once it is SUCCESS. */
export async function uploadTracedImage(system: TestSystem, c: ApiCreds, requestId: string): Promise<string> {
  const api = apiClient(system, c);
  const file = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
  const created = await api.POST('/media', { body: { name: 'traced.jpg', destinationType: 'POST_MEDIA' } });
  // With the body, so a refusal says who refused and why (a 401 here was seen once, not reproduced).
  expect({ status: created.response.status, body: created.data ?? created.error }).toMatchObject({ status: 201 });
  const path = { mediaId: created.data!.id };
  // The signed storage address is raw HTTP: it carries its own signature, not the API keys.
  const put = await fetch(viaGateway(system, created.data!.uploadUrl), {
    method: 'PUT',
    headers: { 'content-type': 'image/jpeg' },
    body: file,
  });
  expect(put.status).toBe(201);
  const confirmed = await api.PATCH('/media/{mediaId}', { params: { path }, ...traced(requestId) });
  expect(confirmed.response.status).toBe(200);
  await eventually(async () => (await api.GET('/media/{mediaId}', { params: { path } })).data?.status === 'SUCCESS', 60000, 200);
  return path.mediaId;
}
