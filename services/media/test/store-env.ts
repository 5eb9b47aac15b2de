import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

/** The backend the media tests run on: MEDIA_STORE=fs (default) or s3 (versitygw of infra.sh, or S3_ENDPOINT). */
export const STORE = (process.env['MEDIA_STORE'] ?? 'fs') as 'fs' | 's3';

/** The local store's credentials: from the environment, else the file scripts/infra.sh made. */
export function s3Credentials(): { accessKeyId: string; secretAccessKey: string } {
  let id = process.env['S3_ACCESS_KEY_ID'];
  let secret = process.env['S3_SECRET_ACCESS_KEY'];
  const file = join(process.env['SOCIAL_STATE_DIR'] ?? join(homedir(), '.cache/social-api'), 's3/credentials.env');
  if ((!id || !secret) && existsSync(file)) {
    const vars = Object.fromEntries(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('=', 2) as [string, string]),
    );
    id = vars['S3_ACCESS_KEY_ID'];
    secret = vars['S3_SECRET_ACCESS_KEY'];
  }
  if (!id || !secret)
    throw new Error('no S3 credentials: run scripts/infra.sh, or set S3_ENDPOINT, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  return { accessKeyId: id, secretAccessKey: secret };
}

export const s3Endpoint = () => process.env['S3_ENDPOINT'] ?? 'http://127.0.0.1:7070';

export function testS3Client(): S3Client {
  return new S3Client({ endpoint: s3Endpoint(), region: 'us-east-1', forcePathStyle: true, credentials: s3Credentials() });
}

/** Every object of a bucket (for tests that check nothing is left behind). */
export async function listKeys(client: S3Client, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

export interface TestStore {
  kind: 'fs' | 's3';
  env: Record<string, string>;
  /** The data directory (fs) or the bucket (s3) of this test run. */
  location: string;
  /** The names of the stored files (not the temporary ones). */
  files(): Promise<string[]>;
  cleanup(): Promise<void>;
}

/** A data directory or a bucket of its own for one test file, removed at the end. */
export async function testStore(kind: 'fs' | 's3' = STORE): Promise<TestStore> {
  if (kind === 'fs') {
    const dir = await mkdtemp(join(tmpdir(), 'media-files-'));
    const { FsFileStore } = await import('../src/storage/fs-file-store');
    return {
      kind,
      env: { MEDIA_STORE: 'fs', MEDIA_DATA_DIR: dir },
      location: dir,
      files: () => new FsFileStore(dir).list(),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const bucket = `t${randomBytes(6).toString('hex')}`;
  const client = testS3Client();
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  const { accessKeyId, secretAccessKey } = s3Credentials();
  return {
    kind,
    env: {
      MEDIA_STORE: 's3',
      S3_ENDPOINT: s3Endpoint(),
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
    },
    location: bucket,
    files: () => listKeys(client, bucket),
    async cleanup() {
      const keys = await listKeys(client, bucket);
      if (keys.length > 0)
        await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })) } }));
      await client.send(new DeleteBucketCommand({ Bucket: bucket }));
      client.destroy();
    },
  };
}
