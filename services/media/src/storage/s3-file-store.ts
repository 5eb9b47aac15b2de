import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createLogger } from '@social/logger';
import { newId } from '../data/ids';
import { checkFileKey, fileNotFound, isFileKey } from './file-key';
import { ByteCount } from './byte-count';
import type { DirectTransfer, FileStore, NewFile, StoredFile } from './file-store';

export interface S3StoreOptions {
  /** The address this service reaches the store at (http://127.0.0.1:7070, http://minio:9000). */
  endpoint: string;
  /** The address clients reach it at, for presigned addresses; the endpoint when empty. */
  publicEndpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Path-style addresses (http://host/bucket/key): what MinIO, versitygw and most others serve. */
  forcePathStyle: boolean;
}

/**
 * A file of unknown size (a chunked upload or import), or of at most one part, goes through
 * lib-storage, which collects each part from the stream's chunks and copies it into one buffer
 * before sending it: 5 MiB parts (the smallest S3 takes), one in flight, keep about 16 MB alive.
 * 8 MiB parts, two in flight, kept up to 34 MB alive, and parts that outlived a young-generation
 * collection stayed as old garbage: the worker grew by 41-109 MB for a 200 MB import.
 */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 1;
/** The largest part S3 takes: a file of known size up to this is streamed as one part. */
const MAX_PART_SIZE = 5 * 1024 * 1024 * 1024;

const log = createLogger('media:s3');
/**
 * The SDK's own lines: without a logger it prints to the console, for instance a warning for every
 * streamed request that failed (a client that hung up, a file over the limit), which the caller
 * reports.
 */
const sdkLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: unknown) => log.debug('s3 client warning', { message: String(message) }),
  error: () => undefined,
};

const isNotFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
};

/**
 * Files as objects of one bucket (key = the file id) in an S3-compatible store. A write of known
 * size is streamed as the one part of a multipart upload, other writes go through lib-storage's
 * multipart upload (a failed upload is aborted, so no parts stay behind); reads are ranged GETs
 * streamed to the caller.
 * `presignPut`/`presignGet` let clients move the bytes to and from the store directly
 * (DirectTransfer), so they need not pass through our services.
 */
export class S3FileStore implements FileStore, DirectTransfer {
  private readonly client: S3Client;
  private readonly signingClient: S3Client;

  constructor(private readonly opts: S3StoreOptions) {
    const common = {
      region: opts.region,
      forcePathStyle: opts.forcePathStyle,
      credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
      // Checksums the SDK adds by default (CRC32 trailers) are not understood by every
      // S3-compatible server; ask for them only where the operation requires one.
      requestChecksumCalculation: 'WHEN_REQUIRED' as const,
      responseChecksumValidation: 'WHEN_REQUIRED' as const,
      logger: sdkLogger,
    };
    this.client = new S3Client({ ...common, endpoint: opts.endpoint });
    this.signingClient = opts.publicEndpoint ? new S3Client({ ...common, endpoint: opts.publicEndpoint }) : this.client;
  }

  get bucket(): string {
    return this.opts.bucket;
  }

  async write(source: Readable, meta: NewFile): Promise<StoredFile> {
    const id = newId();
    // Counted in a transform, not by a 'data' listener: a listener would switch the stream to
    // flowing mode, and the source would be read as fast as it comes, whatever the upload's pace.
    const body = new ByteCount(meta.size);
    source.on('error', (err) => body.destroy(err));
    source.pipe(body);
    const params = { Bucket: this.opts.bucket, Key: id, ContentType: meta.contentType, Metadata: { 'media-id': meta.mediaId } };
    try {
      if (meta.size !== undefined && meta.size > PART_SIZE && meta.size <= MAX_PART_SIZE) await this.putAsOnePart(params, body, meta.size);
      else await this.putInParts(params, body);
    } catch (err) {
      // Unpiped from the source, which stays the caller's (an upload still gets its answer); and an
      // error the source raises later has no request left to fail.
      body.destroy();
      await this.delete(id).catch(() => undefined);
      throw err;
    }
    return { id, size: body.bytes, contentType: meta.contentType };
  }

  /**
   * The source as the only part of a multipart upload, piped into the UploadPart request: no part
   * is buffered, so the process holds only the stream's own few chunks whatever the file size. A
   * source that fails aborts the request (piped, it would leave the store waiting for the rest) and
   * the upload. Not one PutObject: a store may keep a PUT whose body ended short as a shorter
   * object, after our delete (versitygw 1.8.0 does, its issue 2414); an upload that is never
   * completed leaves no object, and the sweep aborts what a killed process left.
   */
  private async putAsOnePart(params: PutObjectCommandInput, body: ByteCount, size: number): Promise<void> {
    const abort = new AbortController();
    const onError = (err: Error) => abort.abort(err);
    body.once('error', onError);
    const target = { Bucket: params.Bucket, Key: params.Key };
    let uploadId: string | undefined;
    try {
      ({ UploadId: uploadId } = await this.client.send(new CreateMultipartUploadCommand(params), { abortSignal: abort.signal }));
      const part = await this.client.send(
        new UploadPartCommand({ ...target, UploadId: uploadId, PartNumber: 1, Body: body, ContentLength: size }),
        { abortSignal: abort.signal },
      );
      // Every byte passed the count (the stream ended, not only the request).
      await finished(body);
      await this.client.send(
        new CompleteMultipartUploadCommand({
          ...target,
          UploadId: uploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
        }),
      );
    } catch (err) {
      if (uploadId) await this.client.send(new AbortMultipartUploadCommand({ ...target, UploadId: uploadId })).catch(() => undefined);
      throw abort.signal.aborted ? abort.signal.reason : err;
    } finally {
      body.off('error', onError);
    }
  }

  /** lib-storage's multipart upload; a failed one is aborted, so no parts stay behind. */
  private async putInParts(params: PutObjectCommandInput, body: ByteCount): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { ...params, Body: body },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      await upload.abort().catch(() => undefined);
      throw err;
    }
  }

  read(id: string, range?: { start: number; end: number }): Readable {
    checkFileKey(id);
    return Readable.from(this.bodyOf(id, range), { objectMode: false, highWaterMark: 1 });
  }

  private async *bodyOf(id: string, range?: { start: number; end: number }): AsyncGenerator<Buffer> {
    let body: Readable;
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.opts.bucket, Key: id, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      body = res.Body as Readable;
    } catch (err) {
      throw isNotFound(err) ? fileNotFound(id) : err;
    }
    try {
      for await (const chunk of body) yield chunk as Buffer;
    } finally {
      body.destroy();
    }
  }

  async stat(id: string): Promise<StoredFile | null> {
    if (!isFileKey(id)) return null;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: id }));
      return { id, size: Number(head.ContentLength ?? 0), contentType: head.ContentType ?? 'application/octet-stream' };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(id: string): Promise<void> {
    if (!isFileKey(id)) return;
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: id }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  newKey(): string {
    return newId();
  }

  /** A PUT of exactly this type and length (both signed: the store refuses any other). */
  presignPut(id: string, file: { contentType: string; contentLength: number }, expiresInSeconds: number): Promise<string> {
    checkFileKey(id);
    return getSignedUrl(
      this.signingClient,
      new PutObjectCommand({ Bucket: this.opts.bucket, Key: id, ContentType: file.contentType, ContentLength: file.contentLength }),
      { expiresIn: expiresInSeconds, signableHeaders: new Set(['content-type', 'content-length']) },
    );
  }

  presignGet(id: string, response: { contentType: string; cacheControl: string }, expiresInSeconds: number): Promise<string> {
    checkFileKey(id);
    return getSignedUrl(
      this.signingClient,
      new GetObjectCommand({
        Bucket: this.opts.bucket,
        Key: id,
        ResponseContentType: response.contentType,
        ResponseCacheControl: response.cacheControl,
      }),
      { expiresIn: expiresInSeconds },
    );
  }

  /**
   * A presigned GET on the endpoint this process uses (not the public one): ffprobe and ffmpeg read
   * the object by ranges, so measuring a video fetches its header, its index and one frame, not the
   * whole file. Valid for 15 minutes (the decoders time out after one).
   */
  locate(id: string): Promise<string | null> {
    checkFileKey(id);
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.opts.bucket, Key: id }), { expiresIn: 15 * 60 });
  }

  /** Aborts multipart uploads started more than `olderThanMs` ago (a process killed mid-write). */
  async sweepIncoming(olderThanMs: number, now = Date.now()): Promise<number> {
    const res = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.opts.bucket }));
    let removed = 0;
    for (const u of res.Uploads ?? []) {
      if (!u.Key || !u.UploadId || !u.Initiated || now - u.Initiated.getTime() <= olderThanMs) continue;
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.opts.bucket, Key: u.Key, UploadId: u.UploadId }));
      removed++;
    }
    return removed;
  }

  destroy(): void {
    this.client.destroy();
    if (this.signingClient !== this.client) this.signingClient.destroy();
  }
}
